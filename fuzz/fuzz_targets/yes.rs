//! yes: any bytes become a case (operands and options, how many bytes
//! stdout takes before it fails and how, a short-write schedule, buffer
//! sizes); spec and implementation must agree on every prefix.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| samebytes_oracle::yes::fuzz_yes(data));
