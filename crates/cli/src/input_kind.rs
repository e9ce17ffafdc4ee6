//! What kind of input a file is: the recogniser of
//! [`tilemem_pto::input_kind`], and reading a text file for a command
//! that wants one kind.

pub use tilemem_pto::input_kind::{mismatch, recognise, InputKind};

/// Why [`read_text`] read no text.
pub enum TextError {
    /// The file could not be read, or is not UTF-8 text of any kind.
    Io(std::io::Error),
    /// The file is of another kind: the error naming its command.
    Kind(String),
}

/// Reads the text file at `path` (`file` in messages) for a command that
/// reads `want`; a binary file of another kind (a MessagePack document)
/// gets the error naming the command that reads it.
pub fn read_text(path: &std::path::Path, file: &str, want: InputKind) -> Result<String, TextError> {
    let bytes = std::fs::read(path).map_err(TextError::Io)?;
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.into_bytes();
        match mismatch(file, &bytes, want) {
            Some(msg) => TextError::Kind(msg),
            None => TextError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            )),
        }
    })
}
