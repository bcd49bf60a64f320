//! What `sys` promises about memory, which no output comparison can see:
//! mappings are given back when their owner goes, bytes handed to
//! vmsplice are frozen for the rest of the process, and the arguments are
//! borrowed from argv rather than copied.  Each is read from the kernel's
//! own account of the process (/proc/self/maps, /proc/self/stat).
//!
//! One test function, so that no other test thread maps memory into the
//! holes this one checks.

use std::io::Read;
use std::rc::Rc;

use samebytes::sys::{self, FrozenPipe, MappedWindow, PageBuffer};

/// The address ranges of /proc/self/maps, with each line's path.
fn mappings() -> Vec<(usize, usize, String)> {
    let maps = std::fs::read_to_string("/proc/self/maps").expect("read /proc/self/maps");
    maps.lines()
        .map(|line| {
            let mut fields = line.split_whitespace();
            let range = fields.next().expect("range");
            let (start, end) = range.split_once('-').expect("start-end");
            let path = fields.nth(4).unwrap_or("").to_string();
            let hex = |s: &str| usize::from_str_radix(s, 16).expect("hex address");
            (hex(start), hex(end), path)
        })
        .collect()
}

fn is_mapped(addr: usize, len: usize) -> bool {
    mappings()
        .iter()
        .any(|&(start, end, _)| start < addr + len && addr < end)
}

/// A page buffer is its own mapping while it lives, and none after.
fn page_buffers_are_unmapped_when_dropped() {
    for len in [1, 3 * 4096, 5 << 20] {
        let mut buf = PageBuffer::new(len).expect("page buffer");
        buf.fill(b'y');
        let addr = buf.as_ptr() as usize;
        assert!(
            is_mapped(addr, len),
            "a live buffer of {len} bytes is mapped"
        );
        drop(buf);
        assert!(
            !is_mapped(addr, len),
            "a dropped buffer of {len} bytes is unmapped"
        );
    }
}

/// A window onto a file is unmapped once read, whether it was read to the
/// end or dropped unread.
fn windows_are_unmapped_after_use() {
    let path = std::env::temp_dir().join(format!("samebytes-window-{}", std::process::id()));
    std::fs::write(&path, vec![b'w'; 2 * 4096 + 17]).expect("write");
    let file = std::fs::File::open(&path).expect("open");
    let name = path.to_string_lossy().into_owned();
    let names_file = || mappings().iter().any(|(_, _, p)| *p == name);
    let window = MappedWindow::map(&file, 5, 2 * 4096).expect("map");
    assert!(names_file(), "a live window maps the file");
    let read = window.read(|b| (b.len(), b.iter().all(|&c| c == b'w'), names_file()));
    assert_eq!(read, Some((2 * 4096, true, true)));
    assert!(!names_file(), "a read window is unmapped");
    let unread = MappedWindow::map(&file, 0, 4096).expect("map");
    assert!(names_file());
    drop(unread);
    assert!(!names_file(), "a window dropped unread is unmapped");
    let _ = std::fs::remove_file(&path);
}

/// Bytes vmspliced from a buffer stay as they were: the pipe keeps the
/// buffer (once, however often it splices from it) so that safe code can
/// never get it back mutably, and keeps it even when the pipe goes.
fn spliced_buffers_stay_frozen() {
    let (mut read_end, write_end) = sys::pipe().expect("pipe");
    let mut buf = PageBuffer::new(4096).expect("page buffer");
    for (i, b) in buf.iter_mut().enumerate() {
        *b = b'a' + (i % 26) as u8;
    }
    let mut buf = Rc::new(buf);
    let mut pipe = FrozenPipe::new(std::os::fd::AsRawFd::as_raw_fd(&write_end));
    assert!(
        Rc::get_mut(&mut buf).is_some(),
        "not yet spliced: still ours"
    );
    let first = pipe.vmsplice(&buf, 0, 100, true).expect("vmsplice");
    let second = pipe.vmsplice(&buf, 100, 300, false).expect("vmsplice");
    assert_eq!((first, second), (100, 200));
    assert!(Rc::get_mut(&mut buf).is_none(), "spliced: frozen");
    assert_eq!(Rc::strong_count(&buf), 2, "held once by the pipe");
    drop(pipe);
    assert_eq!(Rc::strong_count(&buf), 2, "kept when the pipe goes");
    drop(write_end);
    let mut got = Vec::new();
    read_end.read_to_end(&mut got).expect("read the pipe");
    assert_eq!(got, buf[..300]);
}

/// /proc/self/stat's arg_start and arg_end (fields 48 and 49): where the
/// kernel put argv's strings.
fn argv_area() -> (usize, usize) {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("read /proc/self/stat");
    let after_name = &stat[stat.rfind(')').expect("(comm)") + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // fields[0] is field 3 of proc(5).
    let field = |n: usize| fields[n - 3].parse::<usize>().expect("address");
    (field(48), field(49))
}

/// Run in a child with arguments (the harness may be given none): each
/// argument is a slice of argv's own strings, not a copy.
fn arguments_are_borrowed_from_argv() {
    let args = sys::args_borrowed();
    let expected: Vec<Vec<u8>> = samebytes::args_bytes();
    assert_eq!(args, expected, "the same arguments as std's");
    assert!(!args.is_empty(), "the child is run with arguments");
    let (start, end) = argv_area();
    for a in &args {
        let at = a.as_ptr() as usize;
        assert!(
            start <= at && at + a.len() <= end,
            "{:?} at {at:#x} lies in argv's area {start:#x}..{end:#x}",
            String::from_utf8_lossy(a)
        );
    }
}

const ARGV_CHILD: &str = "SAMEBYTES_SYS_MEMORY_ARGV_CHILD";

#[test]
fn memory_is_given_back_frozen_or_borrowed_as_sys_promises() {
    if std::env::var_os(ARGV_CHILD).is_some() {
        arguments_are_borrowed_from_argv();
        return;
    }
    page_buffers_are_unmapped_when_dropped();
    windows_are_unmapped_after_use();
    spliced_buffers_stay_frozen();
    let status = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "memory_is_given_back_frozen_or_borrowed_as_sys_promises",
            "--exact",
            "--quiet",
        ])
        .env(ARGV_CHILD, "1")
        .status()
        .expect("run the test binary again");
    assert!(status.success(), "the argv check failed in the child");
}
