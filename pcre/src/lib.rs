//! PCRE2, compiled and run the way GNU grep 3.8 does for `-P`
//! (`pcresearch.c`), behind safe functions.
//!
//! The reference implementation may consult PCRE2 for `-P` but forbids
//! `unsafe`, so the foreign calls live here.  What GNU asks of PCRE2:
//! - compile with `PCRE2_DOLLAR_ENDONLY` (`$` only at the very end of the
//!   searched line), `PCRE2_CASELESS` for `-i`, and in the UTF-8 locale
//!   `PCRE2_UTF | PCRE2_MATCH_INVALID_UTF` (an encoding error is data that
//!   matches nothing; no `PCRE2_UCP`, so `\w` and `[[:alpha:]]` stay
//!   ASCII); `-x` is `PCRE2_EXTRA_MATCH_LINE`; the error is PCRE2's own
//!   message;
//! - JIT-compile when it can, and match on the JIT;
//! - when a match runs out of JIT stack, double the stack (from 32 KiB) and
//!   try again; when it runs out of depth, double the depth limit.
//!
//! The searches themselves (which subject, which offset, `PCRE2_NOTBOL`)
//! are the caller's: that is GNU's searching, which the reference and the
//! binaries each write for themselves.

// An FFI crate: PCRE2's calls are its whole purpose, so `unsafe` is
// allowed here (the workspace denies it elsewhere); each block says why it
// holds.
#![allow(unsafe_code)]

use std::ffi::c_int;
use std::ptr::NonNull;
use std::sync::Mutex;

use pcre2_sys::*;

/// How to compile a pattern.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The UTF-8 locale: `PCRE2_UTF | PCRE2_MATCH_INVALID_UTF`.
    pub utf8: bool,
    /// `-i`.
    pub caseless: bool,
    /// `-x`: `PCRE2_EXTRA_MATCH_LINE`.
    pub match_line: bool,
}

/// Why a match could not be decided, as GNU words it after `grep: FILE: `.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchFailure(pub String);

/// A compiled pattern.  Safe to share: each search takes the match state
/// under a lock.
pub struct Pcre {
    code: NonNull<pcre2_code_8>,
    state: Mutex<MatchState>,
}

/// What a match writes to: PCRE2's match data and match context, and the
/// JIT stack once one was needed.
struct MatchState {
    /// The JIT compiled the pattern: matches go to `pcre2_jit_match`,
    /// which `pcre2_match` would call after checks that have nothing to
    /// check here (the subject's UTF-8 is not checked under
    /// `PCRE2_MATCH_INVALID_UTF`, and no other option is passed).
    jit: bool,
    /// Compiled for UTF-8 (with `PCRE2_MATCH_INVALID_UTF`).
    utf8: bool,
    /// The copy of a subject that ends inside an invalid sequence, with
    /// a newline after it (see `run`).
    guarded: Vec<u8>,
    data: NonNull<pcre2_match_data_8>,
    context: NonNull<pcre2_match_context_8>,
    jit_stack: Option<NonNull<pcre2_jit_stack_8>>,
    jit_stack_size: usize,
    depth_limit: Option<u32>,
}

// SAFETY: the compiled code is read-only once compiled and JIT-compiled
// (PCRE2 documents concurrent matching with one code as safe); the match
// state is only touched under the Mutex.
unsafe impl Send for Pcre {}
// SAFETY: as above.
unsafe impl Sync for Pcre {}

impl Pcre {
    /// Compile `pattern` (any bytes; in UTF-8 an encoding error in it is
    /// PCRE2's error).
    pub fn compile(pattern: &[u8], options: Options) -> Result<Pcre, String> {
        let mut flags = PCRE2_DOLLAR_ENDONLY;
        if options.caseless {
            flags |= PCRE2_CASELESS;
        }
        if options.utf8 {
            flags |= PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
        }
        // SAFETY: a null general context asks for malloc; checked below.
        let context = unsafe { pcre2_compile_context_create_8(std::ptr::null_mut()) };
        let context = NonNull::new(context).ok_or("memory exhausted")?;
        if options.match_line {
            // SAFETY: a live compile context; the option is a valid one.
            unsafe { pcre2_set_compile_extra_options_8(context.as_ptr(), PCRE2_EXTRA_MATCH_LINE) };
        }
        let mut error: c_int = 0;
        let mut offset: usize = 0;
        // SAFETY: the pattern pointer is valid for its length (PCRE2 reads
        // no further: the length is given, not a terminator); the context
        // is live and freed right after.
        let code = unsafe {
            let code = pcre2_compile_8(
                pattern.as_ptr(),
                pattern.len(),
                flags,
                &mut error,
                &mut offset,
                context.as_ptr(),
            );
            pcre2_compile_context_free_8(context.as_ptr());
            code
        };
        let Some(code) = NonNull::new(code) else {
            return Err(error_message(error));
        };
        // SAFETY: a compiled code.  Failure leaves the interpreter, which
        // GNU falls back to as well.
        let jit = unsafe { pcre2_jit_compile_8(code.as_ptr(), PCRE2_JIT_COMPLETE) } == 0;
        // SAFETY: a compiled code; null general contexts ask for malloc.
        let (data, context) = unsafe {
            (
                pcre2_match_data_create_from_pattern_8(code.as_ptr(), std::ptr::null_mut()),
                pcre2_match_context_create_8(std::ptr::null_mut()),
            )
        };
        let (Some(data), Some(context)) = (NonNull::new(data), NonNull::new(context)) else {
            // SAFETY: each pointer is null or PCRE2's own, freed once.
            unsafe {
                pcre2_match_data_free_8(data);
                pcre2_match_context_free_8(context);
                pcre2_code_free_8(code.as_ptr());
            }
            return Err("memory exhausted".into());
        };
        Ok(Pcre {
            code,
            state: Mutex::new(MatchState {
                jit,
                utf8: options.utf8,
                guarded: Vec::new(),
                data,
                context,
                jit_stack: None,
                jit_stack_size: 32 << 10,
                depth_limit: None,
            }),
        })
    }

    /// The first match in `subject` that starts at or after `offset`, as
    /// (start, end); `notbol`: `PCRE2_NOTBOL` (`^` does not hold at the
    /// subject's start).
    pub fn find(
        &self,
        subject: &[u8],
        offset: usize,
        notbol: bool,
    ) -> Result<Option<(usize, usize)>, MatchFailure> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        run(self.code, &mut state, subject, offset, notbol)
    }

    /// [`find`](Pcre::find) for an owner that holds the pattern alone: no
    /// lock is taken (the binaries ask once a line).
    pub fn find_mut(
        &mut self,
        subject: &[u8],
        offset: usize,
        notbol: bool,
    ) -> Result<Option<(usize, usize)>, MatchFailure> {
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        run(self.code, state, subject, offset, notbol)
    }
}

/// One search with the compiled `code` and the match `state`.
fn run(
    code: NonNull<pcre2_code_8>,
    state: &mut MatchState,
    subject: &[u8],
    offset: usize,
    notbol: bool,
) -> Result<Option<(usize, usize)>, MatchFailure> {
    // An empty slice's pointer may be dangling, and PCRE2's JIT reads
    // around a subject's start even when it is empty (a lookbehind
    // with a lookahead inside: `(?<=a(?=x) )` on "" faults): an empty
    // subject is given a real address, with bytes on either side.
    static AROUND_EMPTY: [u8; 16] = [0; 16];
    let subject = if subject.is_empty() {
        &AROUND_EMPTY[8..8]
    } else {
        subject
    };
    // PCRE2 10.42's JIT, matching with PCRE2_MATCH_INVALID_UTF, reads
    // the byte after a subject that ends inside an invalid or cut UTF-8
    // sequence, and its answer there depends on that byte: `$\b` on
    // `a\x80` matches when an `x` follows in memory.  GNU's subject is a
    // line in its buffer, followed by its terminator; such a subject of
    // ours is searched from a copy followed by a newline (NUL answers
    // alike), so that the answer is GNU's and no byte of someone else's
    // is read.  The copy's buffer is the state's, kept from call to call
    // (the binaries ask once a line).
    if state.utf8 && ends_inside_invalid_utf8(subject) {
        let mut guarded = std::mem::take(&mut state.guarded);
        guarded.clear();
        guarded.extend_from_slice(subject);
        guarded.push(b'\n');
        let found = search(code, state, &guarded[..subject.len()], offset, notbol);
        state.guarded = guarded;
        return found;
    }
    search(code, state, subject, offset, notbol)
}

/// [`run`]'s search of a subject PCRE2 may read as it is.
fn search(
    code: NonNull<pcre2_code_8>,
    state: &mut MatchState,
    subject: &[u8],
    offset: usize,
    notbol: bool,
) -> Result<Option<(usize, usize)>, MatchFailure> {
    let options = if notbol { PCRE2_NOTBOL } else { 0 };
    loop {
        // Either function takes the same arguments.
        let matcher = if state.jit {
            pcre2_jit_match_8
        } else {
            pcre2_match_8
        };
        // SAFETY: the code is compiled; the subject pointer is valid for
        // its length, with readable bytes around an empty one (above); the
        // match data and context are live and ours alone (under the lock,
        // or through the owner's &mut).
        let e = unsafe {
            matcher(
                code.as_ptr(),
                subject.as_ptr(),
                subject.len(),
                offset,
                options,
                state.data.as_ptr(),
                state.context.as_ptr(),
            )
        };
        if e >= 0 {
            // SAFETY: after a match the output vector holds at least
            // the pair of the whole match.
            let pair = unsafe {
                let ovector = pcre2_get_ovector_pointer_8(state.data.as_ptr());
                (*ovector, *ovector.add(1))
            };
            return Ok(Some(pair));
        }
        match e {
            PCRE2_ERROR_NOMATCH => return Ok(None),
            PCRE2_ERROR_JIT_STACKLIMIT if state.jit_stack_size <= c_int::MAX as usize / 2 => {
                state.grow_jit_stack()?
            }
            PCRE2_ERROR_DEPTHLIMIT => state.raise_depth_limit(e)?,
            _ => return Err(MatchFailure(failure_text(e))),
        }
    }
}

/// Does `subject` end inside a sequence that is not valid UTF-8: a last
/// byte above 0x7F that is not the end of a whole character?
fn ends_inside_invalid_utf8(subject: &[u8]) -> bool {
    let Some(&last) = subject.last() else {
        return false;
    };
    if last < 0x80 {
        return false;
    }
    // The last character starts at most three continuation bytes back.
    let continuation = |b: u8| (0x80..0xc0).contains(&b);
    let start = (subject.len().saturating_sub(4)..subject.len())
        .rev()
        .find(|&i| !continuation(subject[i]))
        .unwrap_or(subject.len() - 1);
    std::str::from_utf8(&subject[start..]).is_err()
}

impl MatchState {
    /// GNU's answer to `PCRE2_ERROR_JIT_STACKLIMIT`: a stack twice the size.
    fn grow_jit_stack(&mut self) -> Result<(), MatchFailure> {
        let old = self.jit_stack_size;
        self.jit_stack_size = old * 2;
        // SAFETY: the old stack (if any) is PCRE2's and freed once, after
        // the context stops naming it; the new one is checked.
        unsafe {
            pcre2_jit_stack_assign_8(self.context.as_ptr(), None, std::ptr::null_mut());
            if let Some(s) = self.jit_stack.take() {
                pcre2_jit_stack_free_8(s.as_ptr());
            }
            let stack = pcre2_jit_stack_create_8(old, self.jit_stack_size, std::ptr::null_mut());
            let stack = NonNull::new(stack).ok_or_else(|| {
                MatchFailure("failed to allocate memory for the PCRE JIT stack".into())
            })?;
            pcre2_jit_stack_assign_8(self.context.as_ptr(), None, stack.as_ptr().cast());
            self.jit_stack = Some(stack);
        }
        Ok(())
    }

    /// GNU's answer to `PCRE2_ERROR_DEPTHLIMIT`: twice the depth, while
    /// that fits an int.
    fn raise_depth_limit(&mut self, e: c_int) -> Result<(), MatchFailure> {
        let current = match self.depth_limit {
            Some(l) => l,
            None => {
                let mut l: u32 = 0;
                // SAFETY: PCRE2_CONFIG_DEPTHLIMIT writes one uint32_t.
                unsafe { pcre2_config_8(PCRE2_CONFIG_DEPTHLIMIT, (&mut l as *mut u32).cast()) };
                l
            }
        };
        if current > c_int::MAX as u32 / 2 {
            return Err(MatchFailure(failure_text(e)));
        }
        self.depth_limit = Some(current * 2);
        // SAFETY: a live match context.
        unsafe { pcre2_set_depth_limit_8(self.context.as_ptr(), current * 2) };
        Ok(())
    }
}

impl Drop for Pcre {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        // SAFETY: every pointer is PCRE2's own, freed once, the context
        // before the stack it names.
        unsafe {
            pcre2_match_data_free_8(state.data.as_ptr());
            pcre2_match_context_free_8(state.context.as_ptr());
            if let Some(s) = state.jit_stack {
                pcre2_jit_stack_free_8(s.as_ptr());
            }
            pcre2_code_free_8(self.code.as_ptr());
        }
    }
}

/// PCRE2's message for an error code.
fn error_message(code: c_int) -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is writable for its length; PCRE2 NUL-terminates
    // what it writes and returns its length (or a negative error).
    let n = unsafe { pcre2_get_error_message_8(code, buffer.as_mut_ptr(), buffer.len()) };
    match usize::try_from(n) {
        Ok(n) => String::from_utf8_lossy(&buffer[..n]).into_owned(),
        Err(_) => format!("PCRE2 error {code}"),
    }
}

/// GNU's words for a match that failed (after `grep: FILE: `).
fn failure_text(e: c_int) -> String {
    match e {
        PCRE2_ERROR_NOMEMORY => "memory exhausted".into(),
        PCRE2_ERROR_JIT_STACKLIMIT => "exhausted PCRE JIT stack".into(),
        PCRE2_ERROR_MATCHLIMIT => "exceeded PCRE's backtracking limit".into(),
        PCRE2_ERROR_DEPTHLIMIT => "exceeded PCRE's nested backtracking limit".into(),
        PCRE2_ERROR_RECURSELOOP => "PCRE detected recurse loop".into(),
        PCRE2_ERROR_HEAPLIMIT => "exceeded PCRE's heap limit".into(),
        _ => format!("internal PCRE error: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf8() -> Options {
        Options {
            utf8: true,
            ..Options::default()
        }
    }

    #[test]
    fn dollar_holds_only_at_the_very_end() {
        let p = Pcre::compile(b"a$", utf8()).unwrap();
        assert_eq!(p.find(b"a\n", 0, false), Ok(None));
        assert_eq!(p.find(b"ba", 0, false), Ok(Some((1, 2))));
    }

    #[test]
    fn notbol_keeps_caret_from_the_start() {
        let p = Pcre::compile(b"^a", utf8()).unwrap();
        assert_eq!(p.find(b"a", 0, true), Ok(None));
        assert_eq!(p.find(b"a", 0, false), Ok(Some((0, 1))));
    }

    #[test]
    fn encoding_errors_match_nothing_and_patterns_take_any_bytes_in_c() {
        let p = Pcre::compile(b"a.b", utf8()).unwrap();
        assert_eq!(p.find(b"a\xffb a\xc3\xa9b", 0, false), Ok(Some((4, 8))));
        let err = Pcre::compile(b"\xff", utf8()).err().unwrap();
        assert!(err.starts_with("UTF-8 error"), "{err}");
        let c = Pcre::compile(b"\xff", Options::default()).unwrap();
        assert_eq!(c.find(b"a\xff", 0, false), Ok(Some((1, 2))));
    }

    #[test]
    fn match_line_wraps_after_parsing() {
        let opts = Options {
            match_line: true,
            ..utf8()
        };
        let err = Pcre::compile(b"a)|(b", opts).err().unwrap();
        assert_eq!(err, "unmatched closing parenthesis");
        let p = Pcre::compile(b"a|ab", opts).unwrap();
        assert_eq!(p.find(b"ab", 0, false), Ok(Some((0, 2))));
    }

    #[test]
    fn an_empty_subject_is_safe_to_look_around() {
        let p = Pcre::compile(b"(?<=a(?=x) )", Options::default()).unwrap();
        assert_eq!(p.find(b"", 0, true), Ok(None));
        assert_eq!(p.find(&b"ax "[3..], 0, false), Ok(None));
    }

    #[test]
    fn a_deep_match_grows_the_jit_stack() {
        let p = Pcre::compile(b"(a|b)*c", utf8()).unwrap();
        let mut subject = vec![b'a'; 1 << 20];
        subject.push(b'c');
        assert_eq!(p.find(&subject, 0, false), Ok(Some((0, subject.len()))));
    }
}
