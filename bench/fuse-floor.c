// The floor of a FUSE daemon's cost per write, for bench/fuse-floor.sh: a daemon that does
// nothing but the FUSE protocol's minimum. Its root holds one file, "f", whose writes go to a
// backing file with one pwrite each; no checks, no locks, no allocation per request. MODE is how
// it takes a request from /dev/fuse:
//   read    read(2) into one buffer, as fuser does (the payload does not start on a page);
//   readv   readv(2): the header and the write's arguments end on a page boundary, so the payload
//           starts on one;
//   splice  splice(2) into a pipe, the header read out of it, the payload spliced to the backing
//           file (needs fs.pipe-max-size of at least 2 MiB: a 1 MiB write is 257 pipe pages).
// Usage: fuse-floor MODE MOUNTPOINT BACKING-FILE (as root; returns once mounted, the daemon runs
// until the mountpoint is unmounted).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static int fd, bfd;
static uint64_t fsize;

static void reply(uint64_t unique, int err, const void *out, size_t len) {
    struct fuse_out_header oh = {.len = sizeof oh + (err ? 0 : len), .error = -err, .unique = unique};
    struct iovec iov[2] = {{&oh, sizeof oh}, {(void *)out, err ? 0 : len}};
    if (writev(fd, iov, 2) < 0 && errno != ENOENT) perror("writev");
}

static void attr(uint64_t ino, struct fuse_attr *a) {
    memset(a, 0, sizeof *a);
    a->ino = ino;
    a->mode = ino == 1 ? S_IFDIR | 0755 : S_IFREG | 0644;
    a->nlink = 1;
    a->size = ino == 1 ? 0 : fsize;
    a->blksize = 4096;
}

// Handle a request other than WRITE; returns 0 to stop.
static int other(struct fuse_in_header *h, char *arg) {
    switch (h->opcode) {
    case FUSE_INIT: {
        struct fuse_init_in *in = (void *)arg;
        struct fuse_init_out o = {.major = 7, .minor = 31, .max_readahead = in->max_readahead,
                                  .flags = FUSE_MAX_PAGES | FUSE_BIG_WRITES, .max_write = 1 << 20, .max_pages = 256,
                                  .max_background = 16, .congestion_threshold = 12};
        reply(h->unique, 0, &o, sizeof o);
        return 1;
    }
    case FUSE_LOOKUP: {
        struct fuse_entry_out e = {0};
        if (h->nodeid != 1 || strcmp(arg, "f")) { reply(h->unique, ENOENT, 0, 0); return 1; }
        e.nodeid = 2; e.entry_valid = 3600; attr(2, &e.attr);
        reply(h->unique, 0, &e, sizeof e);
        return 1;
    }
    case FUSE_GETATTR: case FUSE_SETATTR: {
        struct fuse_attr_out a = {0};
        attr(h->nodeid, &a.attr);
        reply(h->unique, 0, &a, sizeof a);
        return 1;
    }
    case FUSE_OPEN: case FUSE_OPENDIR: {
        struct fuse_open_out o = {.fh = 1, .open_flags = h->opcode == FUSE_OPEN ? FOPEN_DIRECT_IO : 0};
        reply(h->unique, 0, &o, sizeof o);
        return 1;
    }
    case FUSE_FLUSH: case FUSE_RELEASE: case FUSE_RELEASEDIR: reply(h->unique, 0, 0, 0); return 1;
    case FUSE_FORGET: case FUSE_BATCH_FORGET: return 1;
    case FUSE_DESTROY: reply(h->unique, 0, 0, 0); return 0;
    default: reply(h->unique, ENOSYS, 0, 0); return 1;
    }
}

static void wrote(struct fuse_in_header *h, struct fuse_write_in *w, ssize_t n) {
    if (n < 0) { reply(h->unique, errno, 0, 0); return; }
    if (w->offset + n > fsize) fsize = w->offset + n;
    struct fuse_write_out o = {.size = n};
    reply(h->unique, 0, &o, sizeof o);
}

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    const char *mode = argv[1];
    fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    bfd = open(argv[3], O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || bfd < 0) { perror("open"); return 1; }
    char opts[128];
    snprintf(opts, sizeof opts, "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
    if (mount("fx", argv[2], "fuse.fx", MS_NOSUID | MS_NODEV, opts)) { perror("mount"); return 1; }
    if (fork()) return 0; // the parent returns once mounted
    size_t sz = (1 << 20) + 8192;
    char *buf = aligned_alloc(4096, sz + 4096);
    memset(buf, 0, sz + 4096);
    if (!strcmp(mode, "splice")) {
        int p[2];
        if (pipe(p) || fcntl(p[0], F_SETPIPE_SZ, 4 << 20) < 0) { perror("pipe"); return 1; }
        for (;;) {
            ssize_t n = splice(fd, NULL, p[1], NULL, sz, 0);
            if (n < 0) { if (errno == EINTR || errno == ENOENT || errno == EAGAIN) continue; break; }
            struct fuse_in_header *h = (void *)buf;
            if (read(p[0], h, sizeof *h) != sizeof *h) return 1;
            if (h->opcode == FUSE_WRITE) {
                struct fuse_write_in *w = (void *)(buf + sizeof *h);
                if (read(p[0], w, sizeof *w) != sizeof *w) return 1;
                loff_t off = w->offset;
                size_t left = w->size;
                ssize_t m = 0;
                while (left) {
                    ssize_t k = splice(p[0], NULL, bfd, &off, left, SPLICE_F_MOVE);
                    if (k <= 0) { m = -1; break; }
                    left -= k; m += k;
                }
                wrote(h, w, m);
            } else {
                size_t rest = h->len - sizeof *h;
                if (rest && read(p[0], buf + sizeof *h, rest) != (ssize_t)rest) return 1;
                if (!other(h, buf + sizeof *h)) break;
            }
        }
    } else {
        int vec = !strcmp(mode, "readv");
        // readv: header (and the write's arguments) before a page boundary, payload on one.
        size_t hl = sizeof(struct fuse_in_header) + sizeof(struct fuse_write_in);
        for (;;) {
            ssize_t n;
            if (vec) {
                struct iovec iov[2] = {{buf + 4096 - hl, hl}, {buf + 4096, sz - 4096}};
                n = readv(fd, iov, 2);
            } else {
                n = read(fd, buf + 96, sz);
            }
            if (n < 0) { if (errno == EINTR || errno == ENOENT || errno == EAGAIN) continue; break; }
            char *b = vec ? buf + 4096 - hl : buf + 96;
            struct fuse_in_header *h = (void *)b;
            if (h->opcode == FUSE_WRITE) {
                struct fuse_write_in *w = (void *)(b + sizeof *h);
                wrote(h, w, pwrite(bfd, b + hl, w->size, w->offset));
            } else if (!other(h, b + sizeof *h)) {
                break;
            }
        }
    }
    return 0;
}
