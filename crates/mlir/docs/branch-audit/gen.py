#!/usr/bin/env python3
"""Regenerates branches.md: every branch of the audited C++ passes that can
change the output or raise a diagnostic, with our module and our test.

    python3 crates/mlir/docs/branch-audit/gen.py [REFERENCE_PASSES_DIR]

Branches are found in the C++ text (if / else if / case / ?: / emitError /
emitWarning / notifyMatchFailure / return failure / LLVM_DEBUG), each under
the function it is in. functions.tsv maps a function to our module and
tests (function level); branches.tsv names the test of one branch, by
FILE:LINE (branch level), and wins over functions.tsv. A test is counted
only if it exists in the repository. Re-run after editing either file.
"""
import os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, '..', '..', '..', '..'))
REF = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    REPO, '..', 'shared', 'reference', 'ascendnpu-ir', 'passes')
FILES = [
    'plan-memory/PlanMemory.cpp', 'plan-memory/regbase/PlanMemory.cpp',
    'plan-memory/AllocToPointerCast.cpp', 'plan-memory/MemoryDisplay.cpp',
    'plan-memory/RegbaseUtils.cpp', 'plan-memory/HIVMUtils.cpp',
    'PreMarkStrideAlign.cpp', 'MarkStrideAlign.cpp', 'EnableStrideAlign.cpp',
    'PropagateAlignUtil.cpp', 'AdjustAlignUtil.cpp', 'HIVMAlignAllocSize.cpp',
]
BRANCH = re.compile(
    r'^\s*(\}\s*else\s+)?if\s*\(|^\s*\}?\s*else\s+if|^\s*case\s|^\s*default:'
    r'|emitError|emitWarning|emitRemark|emitOpError|LLVM_DEBUG|\bLDBG\('
    r'|return\s+failure|signalPassFailure|notifyMatchFailure|\?\s.*:\s')
CLASS = re.compile(r'^(?:struct|class)\s+(\w+)\b(?!.*;\s*$)')
METHOD = re.compile(r'^  (?!return\b|if\b|for\b|while\b|switch\b|else\b)'
                    r'[A-Za-z_][\w:<>,\s\*&]*?\b(\w+)\s*\([^;]*$')
FUNC = re.compile(r'^(?:static\s+|inline\s+|template\s*<[^>]*>\s*)*'
                  r'[A-Za-z_][\w:<>,\s\*&]*?\b([A-Za-z_]\w*(?:::[~\w]+)*)\s*\(')


def branches(path):
    cur = None
    cls = None
    lines = open(path, encoding='utf-8').read().split('\n')
    for i, line in enumerate(lines, 1):
        c = CLASS.match(line)
        if c:
            cls = c.group(1)
        elif line.startswith('};'):
            cls = None
        if line and not line[0].isspace() and line[0] not in '}#/' \
                and not line.startswith(('namespace', 'using', 'struct', 'class')):
            m = FUNC.match(line)
            if m:
                cur = m.group(1)
            elif i < len(lines):
                m2 = re.match(r'^\s*([\w:~]+)\(', lines[i])
                if m2:
                    cur = m2.group(1)
        elif cls and METHOD.match(line) and not line.rstrip().endswith(';'):
            # A method defined inside its struct or class (a pattern's
            # matchAndRewrite): named after the class.
            cur = f'{cls}::{METHOD.match(line).group(1)}'
        s = line.strip()
        if s.startswith('//') or cur is None or not BRANCH.search(line):
            continue
        if re.search(r'emitError|emitWarning|emitRemark|emitOpError|notifyMatchFailure', line):
            kind = 'diag'
        elif 'LLVM_DEBUG' in line or 'LDBG(' in line:
            kind = 'debug'
        elif re.search(r'return\s+failure|signalPassFailure', line):
            kind = 'fail'
        elif re.match(r'^\s*(case|default)', line):
            kind = 'case'
        else:
            kind = 'cond'
        yield i, cur, kind


def table(name):
    out = {}
    for line in open(os.path.join(HERE, name), encoding='utf-8'):
        if line.startswith('#') or not line.strip():
            continue
        cols = line.rstrip('\n').split('\t') + [''] * 5
        out[cols[0]] = cols[1:5]
    return out


def exists(test):
    if test == '-' or not test:
        return False
    if '::' in test:
        return True
    return os.path.exists(os.path.join(REPO, 'tests', 'lit', test))


def runs(test, cpp):
    """Whether a lit test runs the pass of `cpp` (plan-memory tests name
    the memory-based or the register-based pass on a RUN line)."""
    if '::' in test or not cpp.startswith('plan-memory/') or 'HIVMUtils' in cpp:
        return True
    text = open(os.path.join(REPO, 'tests', 'lit', test), encoding='utf-8').read()
    runs_ = [l for l in text.split('\n') if 'RUN:' in l]
    regbase = any('hivm-plan-memory-regbase' in l for l in runs_)
    membase = any(re.search(r'-hivm-plan-memory(?!-regbase)', l) for l in runs_)
    return regbase if cpp == 'plan-memory/regbase/PlanMemory.cpp' else membase


def main():
    fns = table('functions.tsv')
    per = table('branches.tsv')
    rows, totals = [], {}
    for f in FILES:
        for line, fn, kind in branches(os.path.join(REF, f)):
            short = fn.split('::')[-1]
            key = next((k for k in (f'{f}|{fn}', f'{f}|{short}', fn, short) if k in fns), None)
            if key is None and f == 'plan-memory/HIVMUtils.cpp':
                mod, tests, status, note = '-', '-', 'n/a', 'not called by the audited passes'
            else:
                mod, tests, status, note = fns.get(key, ['-', '-', 'none', 'not mapped yet'])
            if kind == 'debug' and status != 'n/a':
                status, tests, note = 'debug', '-', 'LLVM_DEBUG trace only'
            b = per.get(f'{f}:{line}')
            if b:
                tests, status, note = b[0], b[1], b[2] or note
                mod = b[3] or mod
            live = [t for t in tests.split() if exists(t) and runs(t, f)]
            if status in ('fn', 'test', 'fixed') and not live:
                status = 'none'
            rows.append((f'{f}:{line}', fn, kind, mod, ' '.join(live) or '-', status, note))
            t = totals.setdefault(f, {})
            t[status] = t.get(status, 0) + 1
    with open(os.path.join(HERE, 'branches.md'), 'w', encoding='utf-8') as o:
        o.write('# Branches of the reference passes and the tests that exercise them\n\n')
        o.write('Generated by `gen.py` from `functions.tsv` and `branches.tsv`; see README.md.\n\n')
        o.write('| file | branches | test | fn | fixed | debug | n/a | none |\n|---|---|---|---|---|---|---|---|\n')
        keys = ['test', 'fn', 'fixed', 'debug', 'n/a', 'none']
        grand = {k: 0 for k in keys}
        for f in FILES:
            t = totals.get(f, {})
            n = sum(t.values())
            o.write(f'| {f} | {n} | ' + ' | '.join(str(t.get(k, 0)) for k in keys) + ' |\n')
            for k in keys:
                grand[k] += t.get(k, 0)
        o.write(f'| all | {sum(grand.values())} | ' + ' | '.join(str(grand[k]) for k in keys) + ' |\n\n')
        o.write('| C++ | function | kind | our module | our test | status | note |\n')
        o.write('|---|---|---|---|---|---|---|\n')
        for r in rows:
            o.write('| ' + ' | '.join(x.replace('|', '\\|') for x in r) + ' |\n')
    print(' '.join(f'{k}={v}' for k, v in grand.items()), 'total', sum(grand.values()))


if __name__ == '__main__':
    main()
