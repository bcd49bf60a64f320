//! `grep`: print lines that match patterns.
#![no_main]

samebytes::c_main!(samebytes::entry::tool_main("grep", samebytes::entry::grep));
