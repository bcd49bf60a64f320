//! `cat`: concatenate files to standard output.
#![no_main]

samebytes::c_main!(samebytes::entry::tool_main("cat", samebytes::entry::cat));
