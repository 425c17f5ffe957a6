//! I/O engines fio 3.33 knows (from its `engines/` directory) and their options. zonekit
//! implements `sync`, `psync`, `vsync`, `pvsync`, `pvsync2`, `io_uring`, `libaio`, `posixaio`,
//! `mmap`, `splice`, `falloc`, `ftruncate`, `e4defrag`, `filecreate`, `filestat`, `filedelete`, `null`,
//! `cpuio` and `exec` (no files), and `net` and `netsplice` (sockets, no files)
//! ([`blk_engine`] turns a job's engine and its options into the block layer's typed
//! [`EngineKind`]), and `sg` and `libzbc` on its own emulated devices (where every engine runs in
//! process); the others are recognised by name:
//! `--parse-only` accepts them and their options, and a job that uses one is refused when it
//! runs, with one line naming the engine. An engine name neither fio 3.33 nor zonekit knows is
//! accepted in a job file (fio loads engines only when a job runs, and `external:` engines are
//! files), and refused when a job runs; an option of such an engine is an error.

use zonekit_blk::{
    CpuOptions, E4defragOptions, EngineKind, ExecOptions, FileOp, FileOpsOptions, LibaioOptions, MmapAccess,
    MmapOptions, NetOptions, NetProto, Pvsync2Options, ScsiOptions, ScsiWriteMode, StopFlag, UringOptions,
};

use super::job::{JobOptions, SizeSpec};
use super::table::{Category, Choice, Kind, OptionDef, Support, opt};

/// Whether zonekit runs an engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineSupport {
    /// zonekit runs it.
    Implemented,
    /// fio 3.33 has it; zonekit refuses it when a job runs.
    Refused,
}

/// One engine.
#[derive(Debug, Clone, Copy)]
pub struct EngineDef {
    /// fio's name.
    pub name: &'static str,
    /// Whether zonekit runs it.
    pub support: EngineSupport,
    /// fio's `FIO_SYNCIO`: one I/O at a time, so `iodepth` above 1 is capped (with a note).
    pub sync: bool,
    /// One line of help.
    pub help: &'static str,
    /// The engine's own options.
    pub options: &'static [OptionDef],
}

const E: Category = Category::Engine;
const I: Support = Support::Implemented;
const G: Support = Support::Ignored;
const R: Support = Support::Refused;

const PERCENT: Kind = Kind::IntDirs { min: 0, max: 100 };
const PORT: Kind = Kind::Int { min: 1, max: 65535 };

/// Sets one `cmdprio*` value per direction (reads, writes; trims are ignored, as fio does).
fn cmdprio_dirs(v: &super::value::Value, mut f: impl FnMut(usize, u32)) {
    if let super::value::Value::IntDirs(d) = v {
        for (i, x) in d.iter().take(2).enumerate() {
            if let Some(x) = x {
                f(i, *x as u32);
            }
        }
    }
}

const CMDPRIO_PERCENTAGE: OptionDef = opt(
    "cmdprio_percentage",
    PERCENT,
    E,
    I,
    "Share of I/Os (reads,writes) sent with the priority of cmdprio_class and cmdprio; the others take the job's (prioclass, prio).",
)
.apply(|o, v| {
    let mut p = o.cmdprio.percentage;
    cmdprio_dirs(v, |i, x| p[i] = x);
    o.cmdprio.percentage = p;
    Ok(())
});
const CMDPRIO_CLASS: OptionDef = opt(
    "cmdprio_class",
    Kind::IntDirs { min: 1, max: 3 },
    E,
    I,
    "Priority class of those I/Os (1 real-time, the default; 2 best-effort; 3 idle).",
)
.apply(|o, v| {
    let mut p = o.cmdprio.class;
    cmdprio_dirs(v, |i, x| p[i] = x);
    o.cmdprio.class = p;
    Ok(())
});
const CMDPRIO_LEVEL: OptionDef =
    opt("cmdprio", Kind::IntDirs { min: 0, max: 7 }, E, I, "Priority level of those I/Os.").apply(|o, v| {
        let mut p = o.cmdprio.level;
        cmdprio_dirs(v, |i, x| p[i] = x);
        o.cmdprio.level = p;
        Ok(())
    });
const CMDPRIO_BSSPLIT: OptionDef = opt(
    "cmdprio_bssplit",
    Kind::Special("bs/percent[/class/level]:… per direction"),
    E,
    I,
    "Shares and priorities per block size (reads,writes); an entry without class/level takes cmdprio_class and cmdprio.",
)
.apply(|o, v| {
    let text = v.as_text();
    o.cmdprio.bssplit = super::cmdprio::parse_bssplit(text, o.kb_base)?;
    o.cmdprio.bssplit_set = !text.trim().is_empty();
    Ok(())
});

static IO_URING: &[OptionDef] = &[
    opt("hipri", Kind::Flag, E, I, "Polled completions (IORING_SETUP_IOPOLL); needs direct I/O on a polled queue.")
        .apply(|o, v| {
            o.io_uring.hipri = v.as_bool();
            Ok(())
        }),
    CMDPRIO_PERCENTAGE,
    CMDPRIO_CLASS,
    CMDPRIO_LEVEL,
    CMDPRIO_BSSPLIT,
    opt("fixedbufs", Kind::Flag, E, I, "Register the I/O buffers with the ring once.").apply(|o, v| {
        o.io_uring.fixedbufs = v.as_bool();
        Ok(())
    }),
    opt("registerfiles", Kind::Flag, E, I, "Register the files with the ring once.").apply(|o, v| {
        o.io_uring.registerfiles = v.as_bool();
        Ok(())
    }),
    opt("sqthread_poll", Kind::Flag, E, I, "A kernel thread polls the submission queue (IORING_SETUP_SQPOLL).").apply(
        |o, v| {
            o.io_uring.sqthread_poll = v.as_bool();
            Ok(())
        },
    ),
    opt("sqthread_poll_cpu", Kind::Int { min: 0, max: u32::MAX as i64 }, E, I, "CPU of the submission polling thread.")
        .apply(|o, v| {
            o.io_uring.sqthread_poll_cpu = Some(v.as_u32());
            Ok(())
        }),
    opt(
        "nonvectored",
        Kind::Int { min: -1, max: 1 },
        E,
        I,
        "Plain READ/WRITE opcodes instead of READV/WRITEV (-1: when the kernel has them).",
    )
    .def("-1")
    .apply(|o, v| {
        o.io_uring.nonvectored = match v.as_int() {
            -1 => None,
            0 => Some(false),
            _ => Some(true),
        };
        Ok(())
    }),
    opt(
        "uncached",
        Kind::Int { min: 0, max: u32::MAX as i64 },
        E,
        I,
        "RWF_UNCACHED (fio's value, 0x40) in each buffered read's and write's SQE; the kernel decides what it does (6.11 and later refuse it with EOPNOTSUPP).",
    )
    .apply(
        |o, v| {
            o.io_uring.uncached = v.as_int() != 0;
            Ok(())
        },
    ),
    opt("nowait", Kind::Bool, E, I, "RWF_NOWAIT: fail I/O that would block instead of waiting.").apply(|o, v| {
        o.io_uring.nowait = v.as_bool();
        Ok(())
    }),
    opt(
        "force_async",
        Kind::Int { min: 0, max: u32::MAX as i64 },
        E,
        I,
        "Set IOSQE_ASYNC on every N-th request (0: never).",
    )
    .apply(|o, v| {
        o.io_uring.force_async = v.as_u32();
        Ok(())
    }),
    opt(
        "cmd_type",
        Kind::Choice {
            choices: &[Choice { name: "nvme", canon: "nvme", help: "NVMe passthrough commands" }],
            postfix: false,
        },
        E,
        G,
        "Passthrough command set of io_uring_cmd; no effect for io_uring.",
    )
    .def("nvme"),
];

static LIBAIO: &[OptionDef] = &[
    opt(
        "userspace_reap",
        Kind::Flag,
        E,
        I,
        "Reap completions from the kernel's ring in user space, without a system call, when not waiting for any.",
    )
    .apply(|o, v| {
        o.libaio.userspace_reap = v.as_bool();
        Ok(())
    }),
    CMDPRIO_PERCENTAGE,
    CMDPRIO_CLASS,
    CMDPRIO_LEVEL,
    CMDPRIO_BSSPLIT,
    opt("nowait", Kind::Bool, E, I, "RWF_NOWAIT: fail I/O that would block instead of waiting.").apply(|o, v| {
        o.libaio.nowait = v.as_bool();
        Ok(())
    }),
];

static PVSYNC2: &[OptionDef] = &[
    opt("hipri", Kind::Flag, E, I, "RWF_HIPRI (polled) on every I/O.").apply(|o, v| {
        o.pvsync2.hipri = v.as_bool();
        Ok(())
    }),
    opt("hipri_percentage", Kind::Int { min: 0, max: 100 }, E, I, "RWF_HIPRI on this share of I/Os.").def("100").apply(
        |o, v| {
            o.pvsync2.hipri_percentage = v.as_u32();
            Ok(())
        },
    ),
    opt(
        "uncached",
        Kind::Int { min: 0, max: u32::MAX as i64 },
        E,
        I,
        "RWF_UNCACHED (fio's value, 0x40) on buffered I/O; the kernel decides what it does (6.11 and later refuse it with EOPNOTSUPP).",
    )
    .apply(|o, v| {
            o.pvsync2.uncached = v.as_int() != 0;
            Ok(())
        },
    ),
    opt("nowait", Kind::Bool, E, I, "RWF_NOWAIT on every I/O.").apply(|o, v| {
        o.pvsync2.nowait = v.as_bool();
        Ok(())
    }),
];

static CPUIO: &[OptionDef] = &[
    opt("cpuload", Kind::Int { min: 0, max: 100 }, E, I, "Percentage of one CPU the job uses (1 to 100; required).")
        .apply(|o, v| {
            o.noio.cpuload = v.as_u32();
            Ok(())
        }),
    opt(
        "cpumode",
        Kind::Choice {
            choices: &[
                Choice { name: "noop", canon: "noop", help: "Spin on the clock" },
                Choice { name: "qsort", canon: "qsort", help: "Sort arrays of integers (draws more power)" },
            ],
            postfix: false,
        },
        E,
        I,
        "How the CPU is kept busy.",
    )
    .def("noop")
    .apply(|o, v| {
        o.noio.cpumode_qsort = v.as_text() == "qsort";
        Ok(())
    }),
    opt("cpuchunks", Kind::Int { min: 0, max: u32::MAX as i64 }, E, I, "Length of one CPU burn cycle (µs).")
        .def("50000")
        .apply(|o, v| {
            o.noio.cpuchunks = v.as_u32();
            Ok(())
        }),
    opt("exit_on_io_done", Kind::Bool, E, I, "End the job once every job doing I/O has ended.").def("0").apply(
        |o, v| {
            o.noio.exit_on_io_done = v.as_bool();
            Ok(())
        },
    ),
];

static DFS: &[OptionDef] = &[
    opt("pool", Kind::Text, E, R, "DAOS pool."),
    opt("cont", Kind::Text, E, R, "DAOS container."),
    opt("chunk_size", Kind::Size { min: 0, percent: false, zones: false }, E, R, "DFS chunk size.").def("0"),
    opt("object_class", Kind::Text, E, R, "DAOS object class."),
    opt("svcl", Kind::Text, E, R, "DAOS service ranks (obsolete)."),
];

static E4DEFRAG: &[OptionDef] = &[
    opt(
        "donorname",
        Kind::Text,
        E,
        I,
        "Donor file whose blocks each write swaps in (in directory; created, and preallocated from offset to filesize unless inplace=1; required).",
    )
    .apply(|o, v| {
        o.e4defrag.donorname = Some(v.as_text().to_string());
        Ok(())
    }),
    opt(
        "inplace",
        Kind::Int { min: 0, max: 1 },
        E,
        I,
        "1: allocate the donor's blocks just before each write and free them just after; 0 (the default): preallocate the donor once.",
    )
    .apply(|o, v| {
        o.e4defrag.inplace = v.as_int() != 0;
        Ok(())
    }),
];

static EXEC: &[OptionDef] = &[
    opt("program", Kind::Text, E, I, "Program to run (required).").apply(|o, v| {
        o.noio.program = Some(v.as_text().to_string());
        Ok(())
    }),
    opt(
        "arguments",
        Kind::Text,
        E,
        I,
        "Its arguments, split at spaces (%r: the runtime in seconds, %n: the job name).",
    )
    .apply(|o, v| {
        o.noio.arguments = Some(v.as_text().to_string());
        Ok(())
    }),
    opt(
        "grace_time",
        Kind::Int { min: 0, max: i32::MAX as i64 },
        E,
        I,
        "Seconds the program has to end after SIGTERM, before SIGKILL.",
    )
    .def("1")
    .apply(|o, v| {
        o.noio.grace_time = v.as_u32();
        Ok(())
    }),
    opt("std_redirect", Kind::Bool, E, I, "Write the program's stdout and stderr to JOB.stdout and JOB.stderr.")
        .def("1")
        .apply(|o, v| {
            o.noio.std_redirect = v.as_bool();
            Ok(())
        }),
];

static FILESTAT: &[OptionDef] = &[opt(
    "stat_type",
    Kind::Choice {
        choices: &[
            Choice { name: "stat", canon: "stat", help: "stat(2)" },
            Choice { name: "lstat", canon: "lstat", help: "lstat(2)" },
            Choice { name: "statx", canon: "statx", help: "statx(2) of the absolute path" },
        ],
        postfix: false,
    },
    E,
    I,
    "The call whose speed is measured (a file lookup and its attributes).",
)
.def("stat")
.apply(|o, v| {
    o.noio.stat_type = v.as_text().to_string();
    Ok(())
})];

static GFAPI: &[OptionDef] = &[
    opt("volume", Kind::Text, E, R, "GlusterFS volume."),
    opt("brick", Kind::Text, E, R, "GlusterFS brick host."),
    opt("single-instance", Kind::Bool, E, R, "Share one GlusterFS connection."),
];

static HTTP: &[OptionDef] = &[
    opt(
        "https",
        Kind::Choice {
            choices: &[
                Choice { name: "off", canon: "off", help: "" },
                Choice { name: "on", canon: "on", help: "" },
                Choice { name: "insecure", canon: "insecure", help: "" },
            ],
            postfix: false,
        },
        E,
        R,
        "Use HTTPS (insecure: without checking the certificate).",
    )
    .def("off"),
    opt("http_host", Kind::Text, E, R, "Server host name.").def("localhost"),
    opt("http_user", Kind::Text, E, R, "User name."),
    opt("http_pass", Kind::Text, E, R, "Password."),
    opt("http_s3_key", Kind::Text, E, R, "S3 secret key."),
    opt("http_s3_keyid", Kind::Text, E, R, "S3 key id."),
    opt("http_swift_auth_token", Kind::Text, E, R, "Swift authentication token."),
    opt("http_s3_region", Kind::Text, E, R, "S3 region.").def("us-east-1"),
    opt("http_s3_sse_customer_key", Kind::Text, E, R, "S3 server-side encryption key."),
    opt("http_s3_sse_customer_algorithm", Kind::Text, E, R, "S3 server-side encryption algorithm.").def("AES256"),
    opt("http_s3_storage_class", Kind::Text, E, R, "S3 storage class.").def("STANDARD"),
    opt(
        "http_mode",
        Kind::Choice {
            choices: &[
                Choice { name: "webdav", canon: "webdav", help: "" },
                Choice { name: "s3", canon: "s3", help: "" },
                Choice { name: "swift", canon: "swift", help: "" },
            ],
            postfix: false,
        },
        E,
        R,
        "Protocol flavour.",
    )
    .def("webdav"),
    opt("http_verbose", Kind::Int { min: 0, max: 2 }, E, R, "libcurl verbosity.").def("0"),
];

static LIBCUFILE: &[OptionDef] = &[
    opt("gpu_dev_ids", Kind::Text, E, R, "GPUs to use, `:`-separated."),
    opt(
        "cuda_io",
        Kind::Choice {
            choices: &[
                Choice { name: "cufile", canon: "cufile", help: "" },
                Choice { name: "posix", canon: "posix", help: "" },
            ],
            postfix: false,
        },
        E,
        R,
        "cuFile or POSIX I/O with GPU copies.",
    )
    .def("cufile"),
];

static LIBHDFS: &[OptionDef] = &[
    opt("namenode", Kind::Text, E, R, "HDFS name node.").def("localhost"),
    opt("hostname", Kind::Text, E, R, "HDFS host.").def("localhost"),
    opt("port", PORT, E, R, "HDFS port.").def("9000"),
    opt("hdfsdirectory", Kind::Text, E, R, "HDFS directory.").def("/"),
    opt("chunk_size", Kind::Int { min: 0, max: u32::MAX as i64 }, E, R, "Size of each HDFS file chunk.")
        .alias(&["chunck_size"])
        .def("1048576"),
    opt("single_instance", Kind::Bool, E, R, "Share one HDFS connection.").def("1"),
    opt("hdfs_use_direct", Kind::Bool, E, R, "Use HDFS direct reads.").def("0"),
];

static LIBISCSI: &[OptionDef] =
    &[opt("initiator", Kind::Text, E, R, "iSCSI initiator name.").def("iqn.2019-04.org.fio:fio")];

static LIBRPMA: &[OptionDef] = &[
    opt("serverip", Kind::Text, E, R, "Server IP address."),
    opt("port", Kind::Text, E, R, "Server port.").def("7204"),
    opt("direct_write_to_pmem", Kind::Bool, E, R, "Write straight to persistent memory."),
    opt("busy_wait_polling", Kind::Bool, E, R, "Busy-wait for completions.").def("1"),
];

static MMAP: &[OptionDef] = &[opt(
    "thp",
    Kind::Int { min: 0, max: 1 },
    E,
    I,
    "Use transparent huge pages (MADV_HUGEPAGE); the map is then private, so writes never reach the file, as in fio.",
)
.apply(|o, v| {
    o.mmap_thp = v.as_int() != 0;
    Ok(())
})];

static MTD: &[OptionDef] = &[opt("skip_bad", Kind::Bool, E, R, "Skip bad blocks.").def("0")];

static NBD: &[OptionDef] = &[opt("uri", Kind::Text, E, R, "NBD server URI.")];

static NET: &[OptionDef] = &[
    opt(
        "hostname",
        Kind::Text,
        E,
        I,
        "Host to connect to (or the multicast group a UDP reader joins; for unix, the socket's path); sets filename.",
    )
    .apply(|o, v| {
        o.filename = Some(v.as_text().to_string());
        Ok(())
    }),
    opt("port", PORT, E, I, "TCP or UDP port (each clone of the job adds its number).").apply(|o, v| {
        o.net.port = v.as_u32();
        Ok(())
    }),
    opt(
        "protocol",
        Kind::Choice {
            choices: &[
                Choice { name: "tcp", canon: "tcp", help: "TCP protocol" },
                Choice { name: "tcpv6", canon: "tcpv6", help: "TCP protocol on IPv6" },
                Choice { name: "udp", canon: "udp", help: "UDP protocol" },
                Choice { name: "udpv6", canon: "udpv6", help: "UDP protocol on IPv6" },
                Choice { name: "unix", canon: "unix", help: "UNIX domain socket" },
            ],
            postfix: false,
        },
        E,
        I,
        "Network protocol.",
    )
    .alias(&["proto"])
    .def("tcp")
    .apply(|o, v| {
        o.net.protocol = v.as_text().to_string();
        Ok(())
    }),
    opt("nodelay", Kind::Bool, E, I, "TCP_NODELAY on the connection.").apply(|o, v| {
        o.net.nodelay = v.as_bool();
        Ok(())
    }),
    opt("listen", Kind::Flag, E, I, "Listen for the connection instead of connecting (TCP).").apply(|o, v| {
        o.net.listen = v.as_bool();
        Ok(())
    }),
    opt("pingpong", Kind::Flag, E, I, "Echo each message: a reader sends it back, a writer waits for it.").apply(
        |o, v| {
            o.net.pingpong = v.as_bool();
            Ok(())
        },
    ),
    opt("interface", Kind::Text, E, I, "Address of the interface for UDP multicast.").apply(|o, v| {
        o.net.interface = Some(v.as_text().to_string());
        Ok(())
    }),
    opt("ttl", Kind::Int { min: 0, max: u32::MAX as i64 }, E, I, "Time to live of UDP multicast packets.")
        .def("1")
        .apply(|o, v| {
            o.net.ttl = v.as_u32();
            Ok(())
        }),
    opt("window_size", Kind::Int { min: 0, max: u32::MAX as i64 }, E, I, "Socket buffer size (SO_RCVBUF/SO_SNDBUF).")
        .apply(|o, v| {
            o.net.window_size = v.as_u32();
            Ok(())
        }),
    opt("mss", Kind::Int { min: 0, max: u32::MAX as i64 }, E, I, "TCP maximum segment size (TCP_MAXSEG).").apply(
        |o, v| {
            o.net.mss = v.as_u32();
            Ok(())
        },
    ),
];

static NFS: &[OptionDef] = &[opt("nfs_url", Kind::Text, E, R, "NFS URL, nfs://server/export.")];

static RADOS: &[OptionDef] = &[
    opt("clustername", Kind::Text, E, R, "Ceph cluster name."),
    opt("pool", Kind::Text, E, R, "Ceph pool."),
    opt("clientname", Kind::Text, E, R, "Ceph client name."),
    opt("conf", Kind::Text, E, R, "Ceph configuration file.").def("/etc/ceph/ceph.conf"),
    opt("busy_poll", Kind::Bool, E, R, "Busy-poll for completions.").def("0"),
    opt("touch_objects", Kind::Bool, E, R, "Create the objects at start.").def("1"),
];

static RBD: &[OptionDef] = &[
    opt("clustername", Kind::Text, E, R, "Ceph cluster name."),
    opt("rbdname", Kind::Text, E, R, "RBD image."),
    opt("pool", Kind::Text, E, R, "Ceph pool of the image."),
    opt("clientname", Kind::Text, E, R, "Ceph client name."),
    opt("busy_poll", Kind::Bool, E, R, "Busy-poll for completions.").def("0"),
];

static RDMA: &[OptionDef] = &[
    opt("hostname", Kind::Text, E, R, "Peer host."),
    opt("bindname", Kind::Text, E, R, "Local address to bind."),
    opt("port", PORT, E, R, "Port."),
    opt(
        "verb",
        Kind::Choice {
            choices: &[
                Choice { name: "write", canon: "write", help: "" },
                Choice { name: "read", canon: "read", help: "" },
                Choice { name: "send", canon: "send", help: "" },
                Choice { name: "recv", canon: "recv", help: "" },
            ],
            postfix: false,
        },
        E,
        R,
        "RDMA verb.",
    )
    .alias(&["proto"])
    .def("write"),
];

static SG: &[OptionDef] = &[
    opt("hipri", Kind::Flag, E, I, "Polled completions (SGV4_FLAG_HIPRI); no effect in process, where nothing interrupts.")
        .apply(|o, v| {
            o.sg.hipri = v.as_bool();
            Ok(())
        }),
    opt("readfua", Kind::Bool, E, I, "FUA on reads: the range's data is made durable (flushed) before it is read.")
        .def("0")
        .apply(|o, v| {
            o.sg.readfua = v.as_bool();
            Ok(())
        }),
    opt(
        "writefua",
        Kind::Bool,
        E,
        I,
        "FUA on writes (sg_write_mode=write and write_stream): a write completes once its data is durable (flushed).",
    )
    .def("0")
    .apply(|o, v| {
        o.sg.writefua = v.as_bool();
        Ok(())
    }),
    opt(
        "sg_write_mode",
        Kind::Choice {
            choices: &[
                Choice { name: "write", canon: "write", help: "WRITE" },
                Choice { name: "write_and_verify", canon: "write_and_verify", help: "WRITE AND VERIFY: write, then read back and compare" },
                Choice { name: "verify", canon: "write_and_verify", help: "Deprecated name of write_and_verify" },
                Choice { name: "write_same", canon: "write_same", help: "WRITE SAME: the first block repeated over the range" },
                Choice { name: "same", canon: "write_same", help: "Deprecated name of write_same" },
                Choice { name: "write_same_ndob", canon: "write_same_ndob", help: "WRITE SAME with NDOB: zeros over the range" },
                Choice { name: "verify_bytchk_00", canon: "verify_bytchk_00", help: "VERIFY: read the range, no comparison" },
                Choice { name: "verify_bytchk_01", canon: "verify_bytchk_01", help: "VERIFY: compare the range with the buffer" },
                Choice { name: "verify_bytchk_11", canon: "verify_bytchk_11", help: "VERIFY: compare each block with the buffer's first" },
                Choice { name: "write_stream", canon: "write_stream", help: "WRITE STREAM(16) (stream_id)" },
            ],
            postfix: false,
        },
        E,
        I,
        "SCSI command each write is; every mode counts the I/O's whole length as written, as fio does.",
    )
    .def("write")
    .apply(|o, v| {
        o.sg.write_mode = v.as_text().to_string();
        Ok(())
    }),
    opt(
        "stream_id",
        Kind::Int { min: 0, max: 65535 },
        E,
        I,
        "Stream of sg_write_mode=write_stream (0: one is opened for the job); no effect on where an emulated device places data.",
    )
    .def("0")
    .apply(|o, v| {
        o.sg.stream_id = v.as_u32();
        Ok(())
    }),
];

static WINDOWSAIO: &[OptionDef] =
    &[opt("no_completion_thread", Kind::Flag, E, R, "Poll for completions instead of using a thread.")];

static XNVME: &[OptionDef] = &[
    opt("hipri", Kind::Flag, E, R, "Polled completions."),
    opt("sqthread_poll", Kind::Flag, E, R, "Kernel submission polling."),
    opt("xnvme_be", Kind::Text, E, R, "xNVMe backend."),
    opt("xnvme_async", Kind::Text, E, R, "xNVMe asynchronous interface."),
    opt("xnvme_sync", Kind::Text, E, R, "xNVMe synchronous interface."),
    opt("xnvme_admin", Kind::Text, E, R, "xNVMe admin interface."),
    opt("xnvme_dev_nsid", Kind::Int { min: 0, max: u32::MAX as i64 }, E, R, "NVMe namespace id."),
    opt("xnvme_iovec", Kind::Flag, E, R, "Vectored I/O."),
];

const fn eng(
    name: &'static str,
    support: EngineSupport,
    sync: bool,
    help: &'static str,
    options: &'static [OptionDef],
) -> EngineDef {
    EngineDef { name, support, sync, help, options }
}

const Y: EngineSupport = EngineSupport::Implemented;
const N: EngineSupport = EngineSupport::Refused;

/// Every engine fio 3.33 has, in a stable order (zonekit's own first).
pub static ENGINES: &[EngineDef] = &[
    eng(
        "sync",
        Y,
        true,
        "read(2)/write(2) after lseek(2), one I/O at a time; on zonekit's emulated devices, in process, one at a time.",
        &[],
    ),
    eng(
        "psync",
        Y,
        true,
        "pread(2)/pwrite(2), one I/O at a time (fio's default on Linux); on zonekit's emulated devices, in process, one at a time.",
        &[],
    ),
    eng(
        "io_uring",
        Y,
        false,
        "Linux io_uring with a real queue depth; on zonekit's emulated devices, in process with iodepth I/Os in flight.",
        IO_URING,
    ),
    eng(
        "libaio",
        Y,
        false,
        "Linux native AIO, through its system calls (io_setup, io_submit, io_getevents) without the libaio library; asynchronous only with direct=1 where supported, as with fio; on zonekit's emulated devices, in process with iodepth I/Os in flight.",
        LIBAIO,
    ),
    eng("null", Y, false, "No I/O: completes every request at once (measures the benchmark itself).", &[]),
    eng("vsync", Y, true, "readv(2)/writev(2).", &[]),
    eng("pvsync", Y, true, "preadv(2)/pwritev(2).", &[]),
    eng("pvsync2", Y, true, "preadv2(2)/pwritev2(2) with per-I/O flags.", PVSYNC2),
    eng("io_uring_cmd", N, false, "io_uring passthrough commands (NVMe).", IO_URING),
    eng(
        "posixaio",
        Y,
        false,
        "POSIX aio_read(3)/aio_write(3)/aio_fsync(3) of the C library (glibc serves them with threads of its own); on zonekit's emulated devices, in process with iodepth I/Os in flight.",
        &[],
    ),
    eng(
        "mmap",
        Y,
        true,
        "Copies to and from a memory map of each file (msync(2) for syncs; with direct=1, msync and MADV_DONTNEED after each I/O); not on zonekit's emulated devices.",
        MMAP,
    ),
    eng(
        "splice",
        Y,
        true,
        "splice(2) through a pipe (vmsplice(2) for writes); on zonekit's emulated devices, in process, one at a time.",
        &[],
    ),
    eng(
        "netsplice",
        Y,
        true,
        "Network I/O as net, TCP data moved through a pipe with splice(2); no device or file.",
        NET,
    ),
    eng(
        "net",
        Y,
        true,
        "TCP, UDP or Unix stream socket I/O on one connection: a reader receives, a writer sends; no device or file.",
        NET,
    ),
    eng(
        "cpuio",
        Y,
        true,
        "Burns CPU instead of doing I/O: each I/O spins (or sorts) for cpuchunks µs, then the job thinks so as to use cpuload % of a CPU; no file, no data.",
        CPUIO,
    ),
    eng(
        "sg",
        Y,
        true,
        "SCSI generic passthrough; zonekit runs it on its emulated devices only (in process, one I/O at a time), with readfua, writefua and every sg_write_mode.",
        SG,
    ),
    eng("rdma", N, false, "RDMA verbs.", RDMA),
    eng("rados", N, false, "Ceph RADOS objects.", RADOS),
    eng("rbd", N, false, "Ceph RBD images.", RBD),
    eng(
        "e4defrag",
        Y,
        true,
        "One EXT4_IOC_MOVE_EXT per write, swapping the range's blocks with those of a donor file (donorname) on ext4; reads, trims and syncs fail with EINVAL; not on zonekit's emulated devices.",
        E4DEFRAG,
    ),
    eng(
        "falloc",
        Y,
        true,
        "One fallocate(2) per I/O: reads with FALLOC_FL_KEEP_SIZE, writes allocate, trims punch holes; files opened read-write; not on zonekit's emulated devices.",
        &[],
    ),
    eng(
        "ftruncate",
        Y,
        true,
        "One ftruncate(2) to the offset per write (the block size only sets the bytes counted); reads, trims and syncs fail with EINVAL; not on zonekit's emulated devices.",
        &[],
    ),
    eng(
        "filecreate",
        Y,
        true,
        "Times the creation of each file (open with O_CREAT, reported as its latency); the I/Os move no data.",
        &[],
    ),
    eng(
        "filestat",
        Y,
        true,
        "Times one stat(2), lstat(2) or statx(2) of each file (stat_type), reported as its latency; the I/Os move no data.",
        FILESTAT,
    ),
    eng(
        "filedelete",
        Y,
        true,
        "Times the unlink(2) of each file (laid out first), reported as its latency; the I/Os move no data.",
        &[],
    ),
    eng(
        "exec",
        Y,
        true,
        "Runs a program beside the other jobs until the job's runtime ends (SIGTERM, grace_time, then SIGKILL); no file, no data.",
        EXEC,
    ),
    eng("gfapi", N, true, "GlusterFS, synchronous.", GFAPI),
    eng("gfapi_async", N, false, "GlusterFS, asynchronous.", GFAPI),
    eng("mtd", N, true, "MTD flash devices.", MTD),
    eng("nbd", N, false, "Network block device (libnbd).", NBD),
    eng("pmemblk", N, true, "Persistent memory blocks (libpmemblk).", &[]),
    eng("dev-dax", N, true, "Device DAX persistent memory.", &[]),
    eng("libpmem", N, true, "Persistent memory (libpmem).", &[]),
    eng("dfs", N, false, "DAOS file system.", DFS),
    eng("http", N, true, "HTTP: WebDAV, S3 or Swift.", HTTP),
    eng("ime_psync", N, true, "DDN IME, synchronous.", &[]),
    eng("ime_psyncv", N, true, "DDN IME, vectored.", &[]),
    eng("ime_aio", N, false, "DDN IME, asynchronous.", &[]),
    eng("libcufile", N, true, "NVIDIA GPUDirect Storage (cuFile).", LIBCUFILE),
    eng("libhdfs", N, true, "Hadoop HDFS.", LIBHDFS),
    eng("libiscsi", N, true, "iSCSI in user space.", LIBISCSI),
    eng("librpma_apm_client", N, true, "librpma APM client.", LIBRPMA),
    eng("librpma_apm_server", N, true, "librpma APM server.", LIBRPMA),
    eng("librpma_gpspm_client", N, true, "librpma GPSPM client.", LIBRPMA),
    eng("librpma_gpspm_server", N, true, "librpma GPSPM server.", LIBRPMA),
    eng(
        "libzbc",
        Y,
        true,
        "Zoned SCSI/ATA drives through libzbc; zonekit runs it on its emulated devices only (in process, one I/O at a time).",
        &[],
    ),
    eng("nfs", N, false, "NFS in user space (libnfs).", NFS),
    eng("solarisaio", N, false, "Solaris asynchronous I/O.", &[]),
    eng("windowsaio", N, false, "Windows overlapped I/O.", WINDOWSAIO),
    eng("xnvme", N, false, "xNVMe.", XNVME),
];

/// Looks an engine up by name (`external:…` engines are not in the table).
pub fn find(name: &str) -> Option<&'static EngineDef> {
    ENGINES.iter().find(|e| e.name == name)
}

/// Looks an option up among one engine's options.
pub fn find_option(engine: &EngineDef, name: &str) -> Option<&'static OptionDef> {
    engine.options.iter().find(|o| o.matches(name))
}

/// The engines (by name) that have an option called `name`.
pub fn engines_with_option(name: &str) -> Vec<&'static str> {
    ENGINES.iter().filter(|e| e.options.iter().any(|o| o.matches(name))).map(|e| e.name).collect()
}

/// The block layer's engine for a job's `ioengine` and that engine's options; `None` for an
/// engine zonekit does not run on files (such a job is refused before it runs).
pub fn blk_engine(o: &JobOptions) -> Option<EngineKind> {
    Some(match o.ioengine.as_str() {
        "psync" => EngineKind::Psync,
        "sync" => EngineKind::Sync,
        "pvsync" => EngineKind::Pvsync,
        "pvsync2" => EngineKind::Pvsync2(Pvsync2Options {
            hipri_percentage: if o.pvsync2.hipri { o.pvsync2.hipri_percentage } else { 0 },
            nowait: o.pvsync2.nowait,
            // As fio: RWF_UNCACHED only without O_DIRECT.
            uncached: o.pvsync2.uncached && !o.direct,
        }),
        "vsync" => EngineKind::Vsync,
        "io_uring" => {
            let u = &o.io_uring;
            EngineKind::IoUring(UringOptions {
                iopoll: u.hipri,
                fixed_buffers: u.fixedbufs,
                fixed_files: u.registerfiles,
                sqpoll: u.sqthread_poll,
                sqpoll_cpu: u.sqthread_poll_cpu,
                vectored: u.nonvectored.map(|non| !non),
                nowait: u.nowait,
                force_async: u.force_async,
                // As fio: RWF_UNCACHED only without O_DIRECT.
                uncached: u.uncached && !o.direct,
                ioprio: o.job_ioprio().unwrap_or(0) as u16,
            })
        }
        "libaio" => {
            EngineKind::Libaio(LibaioOptions { userspace_reap: o.libaio.userspace_reap, nowait: o.libaio.nowait })
        }
        "posixaio" => EngineKind::Posixaio,
        "mmap" => EngineKind::Mmap(MmapOptions {
            writable: o.rw.writes(),
            thp: o.mmap_thp,
            direct: o.direct,
            // fio's mmap engine: no advice with fadvise_hint=0; otherwise the access pattern of
            // the job, whatever value the hint has.
            access: if o.fadvise_hint == "0" {
                MmapAccess::Normal
            } else if o.rw.is_random() {
                MmapAccess::Random
            } else {
                MmapAccess::Sequential
            },
        }),
        "splice" => EngineKind::Splice,
        "falloc" => EngineKind::Falloc,
        "ftruncate" => EngineKind::Ftruncate,
        "e4defrag" => EngineKind::E4defrag(e4defrag_options(o)),
        "null" => EngineKind::Null,
        "net" | "netsplice" => EngineKind::Net(net_options(o)),
        "cpuio" => EngineKind::Cpu(CpuOptions {
            // fio clamps a load above 100 (zonekit's option table refuses one).
            load: o.noio.cpuload.min(100),
            cycle_us: o.noio.cpuchunks,
            qsort: o.noio.cpumode_qsort,
            // The run's counters are the caller's.
            exit_on_io_done: None,
        }),
        "exec" => EngineKind::Exec(exec_options(o)),
        // The paths are the job's files, which the caller knows.
        "filecreate" => {
            EngineKind::FileOps(FileOpsOptions { op: FileOp::Create, paths: Vec::new(), calls: Default::default() })
        }
        "filedelete" => {
            EngineKind::FileOps(FileOpsOptions { op: FileOp::Delete, paths: Vec::new(), calls: Default::default() })
        }
        "filestat" => EngineKind::FileOps(FileOpsOptions {
            op: match o.noio.stat_type.as_str() {
                "lstat" => FileOp::Lstat,
                "statx" => FileOp::Statx,
                _ => FileOp::Stat,
            },
            paths: Vec::new(),
            calls: Default::default(),
        }),
        _ => return None,
    })
}

/// The `e4defrag` engine's settings, as fio's `fio_e4defrag_init` derives them: the donor is
/// `directory/donorname` (the `directory` option as written), preallocated from the job's
/// `offset` to the upper bound of its `filesize` (without `filesize` that range is empty, which
/// fails the setup with `EINVAL`, as in fio).
fn e4defrag_options(o: &JobOptions) -> E4defragOptions {
    let name = o.e4defrag.donorname.clone().unwrap_or_default();
    let donor = match &o.directory {
        Some(d) => format!("{d}/{name}"),
        None => name,
    };
    let start = o.offset.bytes().unwrap_or(0);
    let high = o.filesize.map_or(0, |(_, high)| high);
    let len = i64::try_from(high).unwrap_or(i64::MAX).saturating_sub(i64::try_from(start).unwrap_or(i64::MAX));
    E4defragOptions { donor: donor.into(), inplace: o.e4defrag.inplace, prealloc: (start, len) }
}

/// The `sg` engine's command variants for zonekit's in-process engine (`hipri` and `stream_id`
/// change nothing there).
pub fn scsi_options(o: &JobOptions) -> Option<ScsiOptions> {
    if o.ioengine != "sg" {
        return None;
    }
    let write_mode = match o.sg.write_mode.as_str() {
        "write_and_verify" => ScsiWriteMode::WriteAndVerify,
        "write_same" => ScsiWriteMode::WriteSame,
        "write_same_ndob" => ScsiWriteMode::WriteSameNdob,
        "write_stream" => ScsiWriteMode::WriteStream,
        "verify_bytchk_00" => ScsiWriteMode::VerifyBytchk00,
        "verify_bytchk_01" => ScsiWriteMode::VerifyBytchk01,
        "verify_bytchk_11" => ScsiWriteMode::VerifyBytchk11,
        _ => ScsiWriteMode::Write,
    };
    Some(ScsiOptions { read_fua: o.sg.readfua, write_fua: o.sg.writefua, write_mode })
}

/// fio's `expand_variables` of `exec`'s arguments: `%r` is the runtime in whole seconds (0
/// without one), `%n` the job's name.
pub fn exec_arguments(o: &JobOptions) -> Option<String> {
    let secs = o.runtime.map_or(0, |d| d.as_secs());
    o.noio.arguments.as_ref().map(|a| a.replace("%r", &secs.to_string()).replace("%n", &o.name))
}

/// The `exec` engine's settings, as fio's `exec_background` uses them.
fn exec_options(o: &JobOptions) -> ExecOptions {
    let n = &o.noio;
    ExecOptions {
        program: n.program.clone().unwrap_or_default(),
        arguments: exec_arguments(o),
        redirect: n.std_redirect.then(|| (format!("{}.stdout", o.name).into(), format!("{}.stderr", o.name).into())),
        grace_time_s: u64::from(n.grace_time),
        timeout_us: o.runtime.map_or(0, |d| d.as_micros() as u64),
        poll_us: 50_000,
    }
}

/// The network engines' settings, as fio's `fio_netio_init` resolves them (a UDP or Unix
/// reader listens). The port is the job's; each clone adds its number when it runs.
fn net_options(o: &JobOptions) -> NetOptions {
    let n = &o.net;
    let proto = match n.protocol.as_str() {
        "tcpv6" => NetProto::TcpV6,
        "udp" => NetProto::Udp,
        "udpv6" => NetProto::UdpV6,
        "unix" => NetProto::Unix,
        _ => NetProto::Tcp,
    };
    let reads = o.rw.reads();
    NetOptions {
        proto,
        host: o.filename.clone(),
        port: u16::try_from(n.port).unwrap_or(0),
        listen: if proto.is_tcp() { n.listen } else { reads },
        writes: o.rw.writes(),
        pingpong: n.pingpong,
        nodelay: n.nodelay,
        window_size: n.window_size,
        mss: n.mss,
        interface: n.interface.as_deref().and_then(|i| i.parse().ok()),
        ttl: n.ttl,
        splice: o.ioengine == "netsplice",
        total_bytes: o.size.and_then(SizeSpec::bytes).unwrap_or(0),
        udp_seq: o.verify.kind == crate::verify::VerifyType::None,
        stop: StopFlag::default(),
    }
}

/// A listener (TCP with `listen`, a UDP reader) given a host that is no IPv4 multicast group.
fn listener_host_not_multicast(o: &JobOptions) -> bool {
    let n = &o.net;
    let Some(host) = o.filename.as_deref() else { return false };
    let group = host.parse::<std::net::Ipv4Addr>().is_ok_and(|a| a.is_multicast());
    (n.protocol.starts_with("tcp") && n.listen) || (n.protocol == "udp" && o.rw.reads() && !group)
}

/// fio's `fio_netio_init` checks of a network job (`None` for any other engine): the first
/// problem, worded as fio's line (without its `fio: `).
pub fn net_job_problem(o: &JobOptions) -> Option<String> {
    if !matches!(o.ioengine.as_str(), "net" | "netsplice") {
        return None;
    }
    let n = &o.net;
    let unix = n.protocol == "unix";
    let tcp = n.protocol.starts_with("tcp");
    Some(if o.rw.is_random() {
        "network IO can't be random".into()
    } else if unix && n.port != 0 {
        "network IO port not valid with unix socket".into()
    } else if !unix && n.port == 0 {
        "network IO requires port for tcp or udp".into()
    } else if !tcp && n.listen {
        "listen only valid for TCP proto IO".into()
    } else if !tcp && o.rw.reads() && o.rw.writes() {
        "datagram network connections must be read OR write".into()
    } else if unix && o.filename.is_none() {
        "UNIX sockets need host/filename".into()
    } else if !n.listen && (tcp || !o.rw.reads()) && o.filename.is_none() {
        if o.rw.reads() {
            "connect with no host to connect to (did you forget to set 'listen'?)".into()
        } else {
            "connect with no host to connect to".into()
        }
    } else if listener_host_not_multicast(o) {
        "hostname not valid for non-multicast inbound network IO".into()
    } else if n.protocol == "udpv6" && o.rw.reads() && o.filename.is_some() {
        "IPv6 not supported for multicast network IO".into()
    } else if n.interface.as_deref().is_some_and(|i| i.parse::<std::net::Ipv4Addr>().is_err()) {
        "interface not valid interface IP".into()
    } else {
        return None;
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_zonekit_runs_on_files_has_a_block_layer_engine_of_its_name() {
        for e in ENGINES {
            let o = JobOptions { ioengine: e.name.to_string(), ..JobOptions::default() };
            let on_files =
                e.support == EngineSupport::Implemented && !crate::target::DEVICE_ONLY_ENGINES.contains(&e.name);
            assert_eq!(blk_engine(&o).map(|k| k.name()), on_files.then_some(e.name), "{}", e.name);
        }
    }

    #[test]
    fn e4defrag_and_sg_options_as_fio_reads_them() {
        use crate::cmdline::parse_args;
        use crate::jobfile::Env;
        let job = |args: &[&str]| {
            let mut all = vec!["--name=j".to_string()];
            all.extend(args.iter().map(|a| a.to_string()));
            let inv = parse_args(&all, &Env::hermetic(Vec::<(String, String)>::new())).unwrap();
            inv.jobs[0].options.clone()
        };
        // fio's donor: `directory` as written, `/`, `donorname`; preallocated from `offset` to
        // the upper bound of `filesize` (none: an empty range).
        let o =
            job(&["--ioengine=e4defrag", "--directory=/mnt/a", "--donorname=d", "--filesize=1m-4m", "--offset=64k"]);
        let Some(EngineKind::E4defrag(e)) = blk_engine(&o) else { panic!() };
        assert_eq!(
            e,
            E4defragOptions { donor: "/mnt/a/d".into(), inplace: false, prealloc: (65536, (4 << 20) - 65536) }
        );
        let o = job(&["--ioengine=e4defrag", "--donorname=d", "--inplace=1"]);
        let Some(EngineKind::E4defrag(e)) = blk_engine(&o) else { panic!() };
        assert_eq!((e.donor.to_str(), e.inplace, e.prealloc), (Some("d"), true, (0, 0)));
        // sg: the deprecated names are the new ones; hipri and stream_id change no command here.
        let o = job(&["--ioengine=sg", "--sg_write_mode=same", "--writefua=1", "--hipri", "--stream_id=9"]);
        let want = ScsiOptions { read_fua: false, write_fua: true, write_mode: ScsiWriteMode::WriteSame };
        assert_eq!(scsi_options(&o), Some(want));
        let o = job(&["--ioengine=sg", "--sg_write_mode=verify", "--readfua=1"]);
        let want = ScsiOptions { read_fua: true, write_fua: false, write_mode: ScsiWriteMode::WriteAndVerify };
        assert_eq!(scsi_options(&o), Some(want));
        assert_eq!(scsi_options(&job(&["--ioengine=libzbc"])), None, "sg's options are sg's");
    }

    #[test]
    fn engine_options_reach_the_block_layer_typed() {
        let mut o = JobOptions { ioengine: "io_uring".into(), ..JobOptions::default() };
        o.io_uring.hipri = true;
        o.io_uring.nonvectored = Some(true);
        o.io_uring.sqthread_poll_cpu = Some(3);
        o.io_uring.force_async = 4;
        let Some(EngineKind::IoUring(u)) = blk_engine(&o) else { panic!() };
        assert!(u.iopoll && u.vectored == Some(false) && u.sqpoll_cpu == Some(3) && u.force_async == 4);
        o.io_uring.nonvectored = None;
        let Some(EngineKind::IoUring(u)) = blk_engine(&o) else { panic!() };
        assert_eq!(u.vectored, None, "nonvectored=-1: whatever the kernel has");

        // pvsync2: hipri_percentage counts only with hipri, and is 100 by default.
        let mut o = JobOptions { ioengine: "pvsync2".into(), ..JobOptions::default() };
        let pv = |o: &JobOptions| match blk_engine(o) {
            Some(EngineKind::Pvsync2(p)) => p,
            k => panic!("{k:?}"),
        };
        assert_eq!(pv(&o).hipri_percentage, 0);
        o.pvsync2.hipri = true;
        assert_eq!(pv(&o).hipri_percentage, 100);
        o.pvsync2.hipri_percentage = 30;
        o.pvsync2.nowait = true;
        assert_eq!(pv(&o), Pvsync2Options { hipri_percentage: 30, nowait: true, uncached: false });
        o.pvsync2.uncached = true;
        assert!(pv(&o).uncached, "RWF_UNCACHED on buffered I/O");
        o.direct = true;
        assert!(!pv(&o).uncached, "and never with direct=1, as fio");
    }
}
