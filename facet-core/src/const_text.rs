//! Text at compile time: string equality and messages for `const` panics (which take one
//! `&str`), for the checks `faceteer::table!` runs while compiling.

/// Whether `a` and `b` are the same string.
pub(crate) const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A message assembled at compile time, up to 1,024 bytes.
pub(crate) struct Message {
    buf: [u8; 1024],
    len: usize,
}

impl Message {
    /// An empty message.
    pub(crate) const fn new() -> Self {
        Message {
            buf: [0; 1024],
            len: 0,
        }
    }

    /// The message with `text` added (cut at 1,024 bytes).
    pub(crate) const fn push(mut self, text: &str) -> Self {
        let t = text.as_bytes();
        let mut i = 0;
        while i < t.len() && self.len < self.buf.len() {
            self.buf[self.len] = t[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// The message's text.
    pub(crate) const fn as_str(&self) -> &str {
        let (bytes, _) = self.buf.split_at(self.len);
        match core::str::from_utf8(bytes) {
            Ok(s) => s,
            Err(_) => "a compile-time check failed (its message was cut inside a character)",
        }
    }
}
