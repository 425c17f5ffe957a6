use super::*;

/// The digest field of a 4 KiB block fio 3.33 wrote with `verify_pattern='0x5a"fio"'` (so the
/// data is known), per method: fio's own bytes, read from the files it wrote.
const FIO_VECTORS: &[(&str, &str)] = &[
    ("md5", "5b5b9ceeed9c61fe4158529d3426c497"),
    ("crc64", "d1c364ce753c4811"),
    ("crc32", "55dd362a"),
    ("crc32c", "549f23b1"),
    ("crc16", "7484"),
    ("crc7", "02"),
    ("sha1", "c1f338d3179198b8ebfca759cdf807fcd1b0b260"),
    (
        "sha256",
        "3168f8edaf8a9d575a66696f5a66696f5a66696f5a66696f80000000000000000000000000000000000000000000000000000000000000\
         00c07c000000000000",
    ),
    (
        "sha512",
        "5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f5a66696f",
    ),
    ("sha3-224", "1bdf31cfa086f4476ce6925f8e0e4b7f837f572e63659c1a57126145"),
    ("sha3-256", "5d2d7ec4c522d2d7c344f90cc53d857e1fca82f12063c5e29e491d55d95f0154"),
    ("sha3-384", "5ba546d86bf207c9944f0570015e29b8e6b05b804e41dbb416e76e8a815c0703f3367a1916c227c58a32da24a3df7467"),
    (
        "sha3-512",
        "e0a57785d16ba07ddac0d51ffe40b7c5d60bca5bdea5f5cbf2090157f1e15350559b70b829ee14d1b6cd9fce88ca5bf3ee60df9d6ca5055f42451cda2d9bfed0",
    ),
    ("xxhash", "fe884d9d"),
];

fn spec(kind: VerifyType) -> VerifySpec {
    VerifySpec {
        kind,
        interval: 4096,
        hdr_offset: 0,
        pattern: None,
        compress_percentage: 0,
        buffer_pattern: Vec::new(),
        fatal: false,
        dump: false,
        thread: 1,
        check_numberio: true,
    }
}

fn expect(offset: u64) -> Expect<'static> {
    Expect { file: "f", offset, seed: None, numberio: 3, flags: 8 }
}

#[test]
fn digests_equal_fios_on_the_same_data() {
    let pattern = Pattern::parse("0x5a\"fio\"").unwrap();
    for (name, want) in FIO_VECTORS {
        let kind = VerifyType::from_option(name);
        let hs = kind.hdr_size();
        let mut buf = vec![0u8; 4096];
        pattern.fill(&mut buf, 0);
        let mut got = vec![0u8; kind.digest_len()];
        digest(kind, &buf[hs..], &mut got);
        assert_eq!(hex(&got), want.replace(char::is_whitespace, ""), "{name}");
    }
}

#[test]
fn crc32c_of_a_header_is_fios() {
    // The header fio wrote in the crc32c vector file: its stored CRC matches ours.
    assert_eq!(fio_crc32c(b"123456789"), !0xe306_9283);
}

#[test]
fn written_blocks_verify_and_corruption_is_reported_as_fio_reports_it() {
    for kind in [VerifyType::Md5, VerifyType::Crc32c, VerifyType::Sha512, VerifyType::Sha256, VerifyType::Meta] {
        let s = spec(kind);
        let mut buf = vec![0u8; 8192];
        s.fill(&mut buf, 8192, 77, 3, (1, 2));
        let h = Header::read(&buf[4096..]);
        assert_eq!((h.magic, h.len, h.offset, h.rand_seed, h.numberio), (0xacca, 4096, 12288, 77, 3));
        assert_eq!(s.check(&mut buf.clone(), &expect(8192)), Ok(()), "{kind:?}");
        let mut bad = buf.clone();
        // Within what fio's SHA-512 field covers (the tail of the data).
        bad[4096 + 4050] ^= 0x40;
        let f = s.check(&mut bad, &expect(8192));
        if kind == VerifyType::Meta {
            assert_eq!(f, Ok(()), "meta checks the header only");
            continue;
        }
        let lines = f.unwrap_err().lines;
        assert!(
            lines[0].starts_with(&format!(
                "{}: verify failed at file f offset 12288, length 4096 (requested block: offset=8192, length=8192, flags=8)",
                kind.failure_name()
            )),
            "{lines:?}"
        );
        assert!(lines[1].starts_with("       Expected CRC: "));
        assert!(lines[2].starts_with("       Received CRC: "));
    }
}

#[test]
fn header_checks_in_fios_order_and_words() {
    let s = spec(VerifyType::Crc32c);
    let mut buf = vec![0u8; 4096];
    s.fill(&mut buf, 4096, 5, 3, (0, 0));
    let line = |b: &mut Vec<u8>, e: Expect<'_>| s.check(b, &e).unwrap_err().lines[0].clone();
    let mut b = buf.clone();
    b[0] = 0;
    assert_eq!(
        line(&mut b, expect(4096)),
        "verify: bad magic header ac00, wanted acca at file f offset 4096, length 4096 (requested block: offset=4096, length=4096)"
    );
    assert!(
        line(&mut buf.clone(), expect(0)).starts_with("verify: bad header offset 4096, wanted 0 at file f offset 0")
    );
    assert!(
        line(&mut buf.clone(), Expect { seed: Some(6), ..expect(4096) })
            .starts_with("verify: bad header rand_seed 5, wanted 6")
    );
    assert!(
        line(&mut buf.clone(), Expect { numberio: 4, ..expect(4096) })
            .starts_with("verify: bad header numberio 3, wanted 4")
    );
    let mut b = buf.clone();
    b[24] ^= 1;
    assert!(line(&mut b, expect(4096)).starts_with("verify: bad header crc "));
}

#[test]
fn patterns_with_and_without_a_header() {
    for kind in [VerifyType::Pattern, VerifyType::PatternNoHdr, VerifyType::Meta] {
        let mut s = spec(kind);
        s.pattern = Some(Pattern::parse("%o0xdeadbeef").unwrap());
        let mut buf = vec![0u8; 4096];
        s.fill(&mut buf, 4096, 0, 3, (0, 0));
        assert_eq!(s.check(&mut buf.clone(), &expect(4096)), Ok(()));
        buf[1000] ^= 1;
        let lines = s.check(&mut buf, &expect(4096)).unwrap_err().lines;
        assert!(lines[0].starts_with("fio: got pattern '"), "{lines:?}");
        assert!(lines[0].ends_with("Bad bits 1"));
        let hs = kind.hdr_size();
        assert_eq!(lines[1], format!("fio: bad pattern block offset {}", 1000 - hs));
        assert!(lines[2].starts_with("pattern: verify failed at file f"));
    }
}

#[test]
fn verify_offset_moves_the_header_and_back() {
    let mut s = spec(VerifyType::Md5);
    s.hdr_offset = 512;
    let mut buf = vec![0u8; 4096];
    s.fill(&mut buf, 0, 9, 3, (0, 0));
    assert_eq!(Header::read(&buf[512..]).magic, HDR_MAGIC);
    assert_ne!(Header::read(&buf).magic, HDR_MAGIC);
    assert_eq!(s.check(&mut buf, &expect(0)), Ok(()));
}

#[test]
fn smaller_intervals_carry_their_own_headers() {
    let mut s = spec(VerifyType::Xxhash);
    s.interval = 512;
    let mut buf = vec![0u8; 4096];
    s.fill(&mut buf, 4096, 9, 3, (0, 0));
    for n in 0..8 {
        let h = Header::read(&buf[n * 512..]);
        assert_eq!((h.len, h.offset), (512, 4096 + 512 * n as u64));
    }
    assert_eq!(s.check(&mut buf, &expect(4096)), Ok(()));
}

#[test]
fn the_interval_is_resolved_as_fio_resolves_it() {
    use crate::options::job::JobOptions;
    let opts = |min_w: u64, max_w: u64, vi: u32| {
        let mut o = JobOptions::default();
        o.verify.kind = VerifyType::Md5;
        o.min_bs = [min_w, min_w, min_w];
        o.max_bs = [max_w, max_w, max_w];
        o.verify.interval = vi;
        resolve_options(&mut o).map(|()| o.verify.interval)
    };
    assert_eq!(opts(4096, 4096, 0), Ok(4096), "the block size");
    assert_eq!(opts(4096, 16384, 0), Ok(4096), "the smallest write");
    assert_eq!(opts(4096, 4096, 8192), Ok(4096), "never above the smallest write");
    assert_eq!(opts(4096, 4096, 1000), Ok(4096), "a divisor of the write sizes");
    assert_eq!(opts(4096, 4096, 512), Ok(512));
    assert_eq!(opts(4096, 4096, 64), Ok(64), "room for the md5 header and 8 bytes");
    assert!(opts(4096, 4096, 32).is_err(), "no room for the md5 header");
}
