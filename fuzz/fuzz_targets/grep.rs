//! grep: any bytes become a case (arguments, files, stdin, where stdout goes,
//! read and write schedules, buffer sizes); spec and implementation must
//! agree.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| samebytes_oracle::grep::fuzz_grep(data));
