//! yes: any bytes become a case (operands and options, how many bytes
//! stdout takes before it fails and how, a short-write schedule, buffer
//! sizes); spec and implementation must agree on every prefix.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    // Bytes that decode to no case are kept out of the corpus.
    if samebytes_oracle::yes::fuzz_yes(data) {
        libfuzzer_sys::Corpus::Keep
    } else {
        libfuzzer_sys::Corpus::Reject
    }
});
