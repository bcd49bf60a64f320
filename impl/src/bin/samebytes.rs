//! `samebytes`: every tool in one binary, chosen by the name it is started
//! under or by its first argument (`samebytes wc -l`).
#![no_main]

samebytes::c_main!(samebytes::multicall::main());
