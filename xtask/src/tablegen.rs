//! Just enough of TableGen to read the HIVM/AVE op definitions: classes
//! with template parameters and parents, defs, `let` overrides, string and
//! code concatenation with `#`, dags with `!con`, and late-bound field
//! references (a class's `assemblyFormat` may concatenate a field a def
//! overrides, as `HIVM_ElementwiseNaryOp` does with `extraAssemblyFormat`).

use std::collections::HashMap;

/// A token of a `.td` file.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// An identifier (also `$name` variables and numbers).
    Id(String),
    /// A string or `[{ code }]` literal.
    Str(String),
    /// A `!operator`.
    Bang(String),
    /// Punctuation.
    P(char),
}

/// Splits a `.td` file into tokens (comments and preprocessor lines dropped).
pub fn tokenize(src: &str) -> Vec<Tok> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if line_start && c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        line_start = false;
        if src[i..].starts_with("//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if src[i..].starts_with("/*") {
            i = src[i + 2..].find("*/").map_or(b.len(), |k| i + 4 + k);
        } else if src[i..].starts_with("[{") {
            let end = src[i + 2..].find("}]").map_or(b.len(), |k| i + 2 + k);
            out.push(Tok::Str(src[i + 2..end].to_string()));
            i = (end + 2).min(b.len());
        } else if c == b'"' {
            let mut j = i + 1;
            let mut s = String::new();
            while j < b.len() && b[j] != b'"' {
                if b[j] == b'\\' && j + 1 < b.len() {
                    j += 1;
                }
                s.push(b[j] as char);
                j += 1;
            }
            out.push(Tok::Str(s));
            i = j + 1;
        } else if c == b'!' {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            out.push(Tok::Bang(src[i + 1..j].to_string()));
            i = j;
        } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'.') {
                j += 1;
            }
            out.push(Tok::Id(src[i..j].to_string()));
            i = j;
        } else {
            out.push(Tok::P(c as char));
            i += 1;
        }
    }
    out
}

/// An unevaluated expression.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A string or code literal.
    Str(String),
    /// A name: a template parameter, a field, or a def.
    Id(String),
    /// `Class<args>`: an anonymous instance.
    Inst(String, Vec<Expr>),
    /// `!op(args)`.
    Bang(String, Vec<Expr>),
    /// `(op arg:$name, ...)`.
    Dag(Box<Expr>, Vec<(Option<Expr>, Option<String>)>),
    /// `[a, b]`.
    List(Vec<Expr>),
    /// `a # b # c`.
    Paste(Vec<Expr>),
}

/// A value after evaluation.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// A string.
    Str(String),
    /// A def or an unresolved name.
    Id(String),
    /// An anonymous instance `Class<args>`.
    Inst(String, Vec<Val>),
    /// A dag: operator and `(arg, $name)` pairs.
    Dag(String, Vec<(Option<Val>, Option<String>)>),
    /// A list.
    List(Vec<Val>),
}

impl Val {
    /// The text of a constraint as written after evaluation
    /// (`Variadic<AnyType>`, `DefaultValuedAttr<BoolAttr, "false">`).
    pub fn text(&self) -> String {
        match self {
            Val::Str(s) => format!("{s:?}"),
            Val::Id(s) => s.clone(),
            Val::Inst(n, args) => {
                let a: Vec<String> = args.iter().map(Val::text).collect();
                format!("{n}<{}>", a.join(", "))
            }
            Val::Dag(op, _) => format!("({op} ...)"),
            Val::List(items) => {
                let a: Vec<String> = items.iter().map(Val::text).collect();
                format!("[{}]", a.join(", "))
            }
        }
    }
}

/// A parent reference `Name<args>`.
#[derive(Clone, Debug)]
pub struct ParentRef {
    /// Class name.
    pub name: String,
    /// Template arguments.
    pub args: Vec<Expr>,
}

/// A class or def.
#[derive(Clone, Debug, Default)]
pub struct Record {
    /// Template parameters with defaults.
    pub params: Vec<(String, Option<Expr>)>,
    /// Parent classes.
    pub parents: Vec<ParentRef>,
    /// Body fields (declarations with a value and `let`s), in order.
    pub fields: Vec<(String, Expr)>,
}

/// All records of a set of files.
#[derive(Default)]
pub struct Records {
    /// Classes by name.
    pub classes: HashMap<String, Record>,
    /// Defs by name, with their order of definition.
    pub defs: Vec<(String, Record)>,
}

struct P<'a> {
    t: &'a [Tok],
    i: usize,
}

impl P<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }
    fn is(&self, c: char) -> bool {
        self.peek() == Some(&Tok::P(c))
    }
    fn eat(&mut self, c: char) -> bool {
        if self.is(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn id(&mut self) -> Option<String> {
        match self.peek() {
            Some(Tok::Id(s)) => {
                let s = s.clone();
                self.i += 1;
                Some(s)
            }
            _ => None,
        }
    }

    /// Skips a balanced token run up to (not including) one of `stops` at
    /// depth 0.
    fn skip_until(&mut self, stops: &[char]) {
        let mut depth = 0i32;
        while let Some(t) = self.peek() {
            if let Tok::P(c) = t {
                if depth == 0 && stops.contains(c) {
                    return;
                }
                match c {
                    '(' | '[' | '{' | '<' => depth += 1,
                    ')' | ']' | '}' | '>' => depth -= 1,
                    _ => {}
                }
            }
            self.i += 1;
        }
    }

    fn expr(&mut self) -> Expr {
        let mut parts = vec![self.term()];
        while self.eat('#') {
            parts.push(self.term());
        }
        if parts.len() == 1 {
            parts.pop().unwrap()
        } else {
            Expr::Paste(parts)
        }
    }

    fn args(&mut self, close: char) -> Vec<Expr> {
        let mut out = Vec::new();
        while !self.is(close) && self.peek().is_some() {
            out.push(self.expr());
            if !self.eat(',') {
                break;
            }
        }
        self.eat(close);
        out
    }

    fn term(&mut self) -> Expr {
        match self.peek().cloned() {
            Some(Tok::Str(s)) => {
                self.i += 1;
                // Adjacent literals concatenate: "a" "b" is "ab".
                let mut s = s;
                while let Some(Tok::Str(more)) = self.peek() {
                    s.push_str(more);
                    self.i += 1;
                }
                Expr::Str(s)
            }
            Some(Tok::Bang(op)) => {
                self.i += 1;
                // `!cast<string>(x)`: the type argument is skipped.
                if self.eat('<') {
                    self.skip_until(&['>']);
                    self.eat('>');
                }
                self.eat('(');
                Expr::Bang(op, self.args(')'))
            }
            Some(Tok::Id(s)) => {
                self.i += 1;
                if self.eat('<') {
                    Expr::Inst(s, self.args('>'))
                } else {
                    Expr::Id(s)
                }
            }
            Some(Tok::P('[')) => {
                self.i += 1;
                Expr::List(self.args(']'))
            }
            Some(Tok::P('(')) => {
                self.i += 1;
                let op = self.term();
                let mut args = Vec::new();
                while !self.is(')') && self.peek().is_some() {
                    let value = if matches!(self.peek(), Some(Tok::Id(s)) if s.starts_with('$')) {
                        None
                    } else {
                        Some(self.expr())
                    };
                    let mut name = None;
                    if value.is_some() {
                        if self.eat(':') {
                            name = self.id();
                        }
                    } else {
                        name = self.id();
                    }
                    args.push((value, name.map(|n| n.trim_start_matches('$').to_string())));
                    if !self.eat(',') {
                        break;
                    }
                }
                self.eat(')');
                Expr::Dag(Box::new(op), args)
            }
            _ => {
                // Anything else (numbers are identifiers): skip one token.
                self.i += 1;
                Expr::Id(String::new())
            }
        }
    }

    fn params(&mut self) -> Vec<(String, Option<Expr>)> {
        let mut out = Vec::new();
        if !self.eat('<') {
            return out;
        }
        while !self.is('>') && self.peek().is_some() {
            // `Type name` or `list<Type> name`, optionally `= default`.
            let mut last = None;
            loop {
                match self.peek() {
                    Some(Tok::P('<')) => {
                        self.i += 1;
                        self.skip_until(&['>']);
                        self.eat('>');
                    }
                    Some(Tok::Id(s)) => {
                        last = Some(s.clone());
                        self.i += 1;
                    }
                    _ => break,
                }
            }
            let default = if self.eat('=') {
                Some(self.expr())
            } else {
                None
            };
            if let Some(n) = last {
                out.push((n, default));
            }
            if !self.eat(',') {
                break;
            }
        }
        self.eat('>');
        out
    }

    fn parents(&mut self) -> Vec<ParentRef> {
        let mut out = Vec::new();
        if !self.eat(':') {
            return out;
        }
        while let Some(name) = self.id() {
            let args = if self.eat('<') {
                self.args('>')
            } else {
                Vec::new()
            };
            out.push(ParentRef { name, args });
            if !self.eat(',') {
                break;
            }
        }
        out
    }

    fn body(&mut self) -> Vec<(String, Expr)> {
        let mut fields = Vec::new();
        if self.eat(';') {
            return fields;
        }
        if !self.eat('{') {
            return fields;
        }
        while !self.is('}') && self.peek().is_some() {
            let start = self.i;
            // Find `=` at depth 0 before `;`.
            let mut depth = 0i32;
            let mut eq = None;
            let mut j = self.i;
            while let Some(t) = self.t.get(j) {
                match t {
                    Tok::P(';') if depth == 0 => break,
                    Tok::P('}') if depth == 0 => break,
                    Tok::P('=') if depth == 0 && eq.is_none() => eq = Some(j),
                    Tok::P('(' | '[' | '{' | '<') => depth += 1,
                    Tok::P(')' | ']' | '}' | '>') => depth -= 1,
                    _ => {}
                }
                j += 1;
            }
            if let Some(eq) = eq.filter(|&e| e > start) {
                if let Tok::Id(name) = &self.t[eq - 1] {
                    let name = name.clone();
                    self.i = eq + 1;
                    let e = self.expr();
                    fields.push((name, e));
                }
            }
            self.i = j;
            self.eat(';');
        }
        self.eat('}');
        fields
    }
}

/// Reads the classes and defs of one file into `records`.
pub fn read_file(src: &str, records: &mut Records) {
    let toks = tokenize(src);
    let mut p = P { t: &toks, i: 0 };
    while let Some(t) = p.peek().cloned() {
        match t {
            Tok::Id(kw) if kw == "class" => {
                p.i += 1;
                let Some(name) = p.id() else { continue };
                let params = p.params();
                let parents = p.parents();
                let fields = p.body();
                records.classes.insert(
                    name,
                    Record {
                        params,
                        parents,
                        fields,
                    },
                );
            }
            Tok::Id(kw) if kw == "def" => {
                p.i += 1;
                let name = if matches!(p.peek(), Some(Tok::Id(_))) {
                    p.id().unwrap_or_default()
                } else {
                    String::new()
                };
                let parents = p.parents();
                let fields = p.body();
                records.defs.push((
                    name,
                    Record {
                        params: Vec::new(),
                        parents,
                        fields,
                    },
                ));
            }
            _ => p.i += 1,
        }
    }
}

/// A def with its fields resolved: every field's expression with the
/// template bindings of the class that set it.
pub struct Instance<'r> {
    /// Final fields (later overrides earlier), each with its bindings.
    pub fields: HashMap<String, (&'r Expr, HashMap<String, Val>)>,
    /// Every ancestor class with its evaluated template arguments.
    pub ancestors: Vec<(String, Vec<Val>)>,
}

impl Records {
    /// Flattens a def through its class chain.
    pub fn instantiate<'r>(&'r self, def: &'r Record) -> Instance<'r> {
        let mut inst = Instance {
            fields: HashMap::new(),
            ancestors: Vec::new(),
        };
        let top = HashMap::new();
        for p in &def.parents {
            let args: Vec<Val> = p.args.iter().map(|a| self.eval(a, &top, None)).collect();
            self.add_class(&p.name, args, &mut inst, 0);
        }
        for (n, e) in &def.fields {
            inst.fields.insert(n.clone(), (e, HashMap::new()));
        }
        inst
    }

    fn add_class<'r>(&'r self, name: &str, args: Vec<Val>, inst: &mut Instance<'r>, depth: u32) {
        let Some(class) = self.classes.get(name) else {
            inst.ancestors.push((name.to_string(), args));
            return;
        };
        if depth > 64 {
            return;
        }
        let mut env = HashMap::new();
        for (i, (pname, default)) in class.params.iter().enumerate() {
            let v = match args.get(i) {
                Some(v) => v.clone(),
                None => match default {
                    Some(d) => self.eval(d, &env, None),
                    None => Val::Id(String::new()),
                },
            };
            env.insert(pname.clone(), v);
        }
        for p in &class.parents {
            let pargs: Vec<Val> = p.args.iter().map(|a| self.eval(a, &env, None)).collect();
            self.add_class(&p.name, pargs, inst, depth + 1);
        }
        inst.ancestors.push((name.to_string(), args));
        for (n, e) in &class.fields {
            inst.fields.insert(n.clone(), (e, env.clone()));
        }
    }

    /// Evaluates field `name` of an instance.
    pub fn field(&self, inst: &Instance, name: &str) -> Option<Val> {
        let (e, env) = inst.fields.get(name)?;
        Some(self.eval(e, env, Some(inst)))
    }

    /// Evaluates an expression: template parameters from `env`, other
    /// names from the instance's fields (late binding).
    pub fn eval(&self, e: &Expr, env: &HashMap<String, Val>, inst: Option<&Instance>) -> Val {
        match e {
            Expr::Str(s) => Val::Str(s.clone()),
            Expr::Id(n) => {
                if let Some(v) = env.get(n) {
                    return v.clone();
                }
                if let Some(inst) = inst {
                    if inst.fields.contains_key(n) {
                        if let Some(v) = self.field(inst, n) {
                            return v;
                        }
                    }
                }
                // `Def.field`: a field of another def.
                if let Some((def, field)) = n.split_once('.') {
                    if let Some(d) = self.def(def) {
                        let i = self.instantiate(d);
                        if let Some(v) = self.field(&i, field) {
                            return v;
                        }
                    }
                }
                Val::Id(n.clone())
            }
            Expr::Inst(n, args) => Val::Inst(
                n.clone(),
                args.iter().map(|a| self.eval(a, env, inst)).collect(),
            ),
            Expr::List(items) => Val::List(items.iter().map(|a| self.eval(a, env, inst)).collect()),
            Expr::Paste(parts) => {
                let mut s = String::new();
                for p in parts {
                    if let Val::Str(t) = self.eval(p, env, inst) {
                        s.push_str(&t);
                    }
                }
                Val::Str(s)
            }
            Expr::Bang(op, args) => {
                let vals: Vec<Val> = args.iter().map(|a| self.eval(a, env, inst)).collect();
                match op.as_str() {
                    "strconcat" => Val::Str(
                        vals.iter()
                            .filter_map(|v| match v {
                                Val::Str(s) => Some(s.as_str()),
                                _ => None,
                            })
                            .collect(),
                    ),
                    "con" => {
                        let mut dop = String::new();
                        let mut all = Vec::new();
                        for v in vals {
                            if let Val::Dag(o, a) = v {
                                dop = o;
                                all.extend(a);
                            }
                        }
                        Val::Dag(dop, all)
                    }
                    "listconcat" => Val::List(
                        vals.into_iter()
                            .flat_map(|v| match v {
                                Val::List(l) => l,
                                other => vec![other],
                            })
                            .collect(),
                    ),
                    _ => Val::Id(format!("!{op}")),
                }
            }
            Expr::Dag(op, args) => {
                let op = match self.eval(op, env, inst) {
                    Val::Id(s) => s,
                    other => other.text(),
                };
                Val::Dag(
                    op,
                    args.iter()
                        .map(|(v, n)| (v.as_ref().map(|v| self.eval(v, env, inst)), n.clone()))
                        .collect(),
                )
            }
        }
    }

    /// The def named `name`.
    pub fn def(&self, name: &str) -> Option<&Record> {
        self.defs.iter().find(|(n, _)| n == name).map(|(_, r)| r)
    }
}
