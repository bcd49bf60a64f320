//! `wc`: print newline, word, character and byte counts.
#![no_main]

samebytes::c_main!(samebytes::entry::tool_main("wc", samebytes::entry::wc));
