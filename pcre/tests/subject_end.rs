//! A search reads nothing past its subject.  PCRE2 10.42's JIT, matching
//! with `PCRE2_MATCH_INVALID_UTF`, reads the byte after a subject that
//! ends inside an invalid or cut UTF-8 sequence, and its answer depends
//! on it (`$\b` on `a\x80` matched when an `x` followed in memory); the
//! exhaustive grep grids found it as a difference between runs.  Each
//! subject here is searched with every byte of a set after it in memory,
//! and the answers must agree, and be those of the subject followed by
//! its line's newline, as GNU's subjects are.

use samebytes_pcre2::{Options, Pcre};

#[test]
fn the_bytes_after_a_subject_never_change_the_answer() {
    let patterns: [&[u8]; 8] = [
        b"$\\b",
        b"\\b",
        b"\\B$",
        b"(?=\\w)",
        b"\\b\\b",
        b"\\B",
        b"(?<=\\w)$",
        b"\\W$",
    ];
    let subjects: [&[u8]; 10] = [
        b"a\x80",
        b" \x80",
        b"a\xc3",
        b" \xe2\x82",
        b" \xff",
        b"a\xc3\xa9",
        b" \xc3\xa9",
        b"\xe4\xb8\xad",
        b"\x80\x80\x80\x80\x80",
        b"a\xf8\x88\x80\x80\x80",
    ];
    let mut searched = 0;
    for caseless in [false, true] {
        let options = Options {
            utf8: true,
            caseless,
            match_line: false,
        };
        for pattern in patterns {
            let pcre = Pcre::compile(pattern, options).expect("compiles");
            for subject in subjects {
                let answers: Vec<_> = [b'\n', 0, b' ', b'x', 0x80, 0xc3]
                    .into_iter()
                    .map(|after| {
                        let mut memory = subject.to_vec();
                        memory.push(after);
                        pcre.find(&memory[..subject.len()], 0, false)
                    })
                    .collect();
                assert!(
                    answers.iter().all(|a| *a == answers[0]),
                    "{:?} on {subject:?}: {answers:?}",
                    String::from_utf8_lossy(pattern)
                );
                searched += usize::from(answers[0].is_ok());
            }
        }
    }
    assert_eq!(searched, 2 * patterns.len() * subjects.len());
}
