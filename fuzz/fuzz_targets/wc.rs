//! wc: any bytes become a case (arguments, files, stdin, read and write
//! schedules, buffer sizes); spec and implementation must agree.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| samebytes_oracle::wc::fuzz_wc(data));
