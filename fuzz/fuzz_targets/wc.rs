//! wc: any bytes become a case (arguments, files, stdin, read and write
//! schedules, buffer sizes); spec and implementation must agree.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    // Bytes that decode to no case are kept out of the corpus.
    if samebytes_oracle::wc::fuzz_wc(data) {
        libfuzzer_sys::Corpus::Keep
    } else {
        libfuzzer_sys::Corpus::Reject
    }
});
