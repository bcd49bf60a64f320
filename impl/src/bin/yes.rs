//! `yes`: output a line repeatedly until killed.
#![no_main]

samebytes::c_main!(samebytes::entry::tool_main("yes", samebytes::entry::yes));
