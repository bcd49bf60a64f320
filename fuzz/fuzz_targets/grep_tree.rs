//! Recursive grep: any bytes become a tree (folders, links, loops,
//! unreadable entries, devices), a command line, read schedules and a
//! thread count; the spec walking it on one thread and the implementation
//! on several, with random delays, must agree.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    // Bytes that decode to no case are kept out of the corpus.
    if samebytes_oracle::grep::tree::fuzz_grep_tree(data) {
        libfuzzer_sys::Corpus::Keep
    } else {
        libfuzzer_sys::Corpus::Reject
    }
});
