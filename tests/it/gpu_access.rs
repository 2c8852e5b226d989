//! The GPU-access component on a real OpenCL device (PoCL on CI): discovery, selection, buffers,
//! program build and cache, the self-test kernels, scan and compaction against host versions.
//!
//! Every test skips with a message (and passes) when the machine has no OpenCL platform.

#![cfg(feature = "opencl")]

use std::process::Command;
use std::sync::{Arc, OnceLock};

use gemp::gpu::args::{SelftestHasEdgeArgs, SelftestLowerBoundArgs};
use gemp::gpu::{self, scan, select_device, sizing, DeviceSelector, Gpu, COMMON_CL, SELFTEST_CL};
use gemp::Error;

/// The shared device, or `None` (after a skip message) when there is no OpenCL platform.
fn gpu(test: &str) -> Option<&'static Gpu> {
    static GPU: OnceLock<Option<Gpu>> = OnceLock::new();
    let gpu = GPU.get_or_init(|| match gpu::platform_count() {
        Ok(0) => None,
        Ok(_) => Some(Gpu::new(DeviceSelector::Auto).expect("opening the OpenCL device")),
        Err(e) => {
            eprintln!("OpenCL platform query failed: {e}");
            None
        }
    });
    if gpu.is_none() {
        eprintln!("skipping {test}: no OpenCL platform found");
    }
    gpu.as_ref()
}

/// splitmix64: deterministic test data without extra dependencies.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next() % n as u64) as u32
    }
}

const SIZES: [usize; 7] = [0, 1, 63, 64, 65, 1000, 100_003];

fn host_exclusive_scan(input: &[u32]) -> Vec<u32> {
    let mut acc = 0u32;
    input
        .iter()
        .map(|&x| {
            let before = acc;
            acc = acc.wrapping_add(x);
            before
        })
        .collect()
}

fn host_compact(flags: &[u32]) -> Vec<u32> {
    (0..flags.len() as u32)
        .filter(|&i| flags[i as usize] != 0)
        .collect()
}

#[test]
fn devices_are_listed() {
    let Some(gpu) = gpu("devices_are_listed") else {
        return;
    };
    let list = gpu::devices().unwrap();
    assert!(!list.is_empty());
    for (i, d) in list.iter().enumerate() {
        assert_eq!(d.index, i);
        assert!(!d.name.is_empty() && !d.platform_name.is_empty(), "{d:?}");
        assert!(d.global_mem_bytes > 0 && d.max_alloc_bytes > 0, "{d:?}");
        assert!(d.max_work_group_size >= 1 && d.compute_units >= 1, "{d:?}");
        assert!(d.opencl_c_version.contains("OpenCL C"), "{d:?}");
    }
    assert!(list.contains(gpu.info()));
    eprintln!("device in use: {:?}", gpu.info());
    // The JSON form carries every field.
    let json = serde_json::to_value(&list).unwrap();
    assert_eq!(json[0]["index"], 0);
    assert!(json[0]["opencl_c_version"].is_string());
}

#[test]
fn selftest_lower_bound_matches_host() {
    let Some(gpu) = gpu("selftest_lower_bound_matches_host") else {
        return;
    };
    let program = gpu
        .program("selftest", &[COMMON_CL, SELFTEST_CL], "")
        .unwrap();
    let mut rng = Rng(7);
    for (n, q) in [(0usize, 5usize), (1, 9), (1000, 5000), (4097, 70_001)] {
        let mut sorted: Vec<u32> = (0..n).map(|_| rng.below(3000)).collect();
        sorted.sort_unstable();
        let queries: Vec<u32> = (0..q).map(|_| rng.below(3100)).collect();
        let sorted_buf = gpu.buffer_from("sorted", &sorted, true).unwrap();
        let queries_buf = gpu.buffer_from("queries", &queries, true).unwrap();
        let lower = gpu.zeroed::<u32>("lower", q).unwrap();
        let upper = gpu.zeroed::<u32>("upper", q).unwrap();
        let kernel = gpu
            .kernel_from(
                &program,
                SelftestLowerBoundArgs {
                    sorted: &sorted_buf,
                    n: n as u32,
                    queries: &queries_buf,
                    q: q as u32,
                    lower: &lower,
                    upper: &upper,
                },
            )
            .unwrap();
        let local = gpu
            .local_size(&program, SelftestLowerBoundArgs::KERNEL, None)
            .unwrap();
        gpu.run(&kernel, sizing::round_up(q, local), Some(local))
            .unwrap();
        let lower = gpu.read(&lower).unwrap();
        let upper = gpu.read(&upper).unwrap();
        for (i, &x) in queries.iter().enumerate() {
            assert_eq!(
                lower[i] as usize,
                sorted.partition_point(|&v| v < x),
                "n={n} x={x}"
            );
            assert_eq!(
                upper[i] as usize,
                sorted.partition_point(|&v| v <= x),
                "n={n} x={x}"
            );
        }
    }
}

#[test]
fn selftest_has_edge_matches_host() {
    let Some(gpu) = gpu("selftest_has_edge_matches_host") else {
        return;
    };
    const ANY: u32 = gemp::model::ANY_TYPE;
    let mut rng = Rng(11);
    let nodes = 300u32;
    // A random multigraph with 4 types and parallel edges, each list sorted by (type, neighbour).
    let mut offsets = vec![0u32];
    let mut types = Vec::new();
    let mut neighbors = Vec::new();
    for _ in 0..nodes {
        let mut list: Vec<(u32, u32)> = (0..rng.below(25))
            .map(|_| (rng.below(4), rng.below(nodes)))
            .collect();
        list.sort_unstable();
        for (t, v) in list {
            types.push(t);
            neighbors.push(v);
        }
        offsets.push(types.len() as u32);
    }
    let q = 20_000usize;
    let qu: Vec<u32> = (0..q).map(|_| rng.below(nodes + 3)).collect();
    let qv: Vec<u32> = (0..q).map(|_| rng.below(nodes)).collect();
    let qt: Vec<u32> = (0..q)
        .map(|_| match rng.below(6) {
            5 => ANY,
            t => t,
        })
        .collect();
    let host = |u: u32, v: u32, t: u32| -> u32 {
        if u >= nodes {
            return 0xFFFF_FFFE;
        }
        let (s, e) = (
            offsets[u as usize] as usize,
            offsets[u as usize + 1] as usize,
        );
        (s..e)
            .find(|&p| neighbors[p] == v && (t == ANY || types[p] == t))
            .map_or(u32::MAX, |p| p as u32)
    };

    let program = gpu
        .program("selftest", &[COMMON_CL, SELFTEST_CL], "")
        .unwrap();
    let b_offsets = gpu.buffer_from("offsets", &offsets, true).unwrap();
    let b_types = gpu.buffer_from("types", &types, true).unwrap();
    let b_neighbors = gpu.buffer_from("neighbors", &neighbors, true).unwrap();
    let b_qu = gpu.buffer_from("qu", &qu, true).unwrap();
    let b_qv = gpu.buffer_from("qv", &qv, true).unwrap();
    let b_qt = gpu.buffer_from("qt", &qt, true).unwrap();
    let found = gpu.uninit::<u32>("found", q).unwrap();
    let kernel = gpu
        .kernel_from(
            &program,
            SelftestHasEdgeArgs {
                offsets: &b_offsets,
                node_count: nodes,
                types: &b_types,
                neighbors: &b_neighbors,
                qu: &b_qu,
                qv: &b_qv,
                qt: &b_qt,
                q: q as u32,
                found: &found,
            },
        )
        .unwrap();
    let elapsed = gpu.run_timed(&kernel, q, None).unwrap();
    eprintln!("selftest_has_edge: {q} queries in {elapsed:?}");
    let found = gpu.read(&found).unwrap();
    let mut hits = 0;
    for i in 0..q {
        assert_eq!(
            found[i],
            host(qu[i], qv[i], qt[i]),
            "query {i}: {} {} {}",
            qu[i],
            qv[i],
            qt[i]
        );
        hits += usize::from(found[i] < u32::MAX - 1);
    }
    assert!(hits > 100, "the test data should contain edges ({hits})");
}

#[test]
fn exclusive_scan_matches_host() {
    let Some(gpu) = gpu("exclusive_scan_matches_host") else {
        return;
    };
    let mut rng = Rng(3);
    for n in SIZES {
        let small: Vec<u32> = (0..n).map(|_| rng.below(100)).collect();
        assert_eq!(
            scan::exclusive_scan_u32(gpu, &small).unwrap(),
            host_exclusive_scan(&small),
            "n={n}"
        );
        // Large values: the sums wrap like u32::wrapping_add.
        let big: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
        assert_eq!(
            scan::exclusive_scan_u32(gpu, &big).unwrap(),
            host_exclusive_scan(&big),
            "n={n} (wrapping)"
        );
        // The device variant also reports the total.
        let buf = gpu.buffer_from("scan input", &small, true).unwrap();
        let (out, total) = scan::exclusive_scan_device(gpu, &buf).unwrap();
        assert_eq!(out.len(), n);
        assert_eq!(total, small.iter().sum::<u32>(), "n={n}");
    }
}

#[test]
fn compaction_matches_host() {
    let Some(gpu) = gpu("compaction_matches_host") else {
        return;
    };
    let mut rng = Rng(5);
    for n in SIZES {
        // Densities: none, sparse, half, all; flag values are arbitrary non-zero numbers.
        for density in [0u32, 3, 50, 100] {
            let flags: Vec<u32> = (0..n)
                .map(|_| {
                    if rng.below(100) < density {
                        1 + rng.below(1000)
                    } else {
                        0
                    }
                })
                .collect();
            let expected = host_compact(&flags);
            assert_eq!(
                scan::compact_host_flags(gpu, &flags).unwrap(),
                expected,
                "n={n} density={density}"
            );
            let buf = gpu.buffer_from("flags", &flags, false).unwrap();
            assert_eq!(scan::compact_flags(gpu, &buf).unwrap(), expected);
            let (indices, count) = scan::compact_flags_device(gpu, &buf).unwrap();
            assert_eq!(count, expected.len());
            assert_eq!(indices.len(), count);
        }
    }
}

#[test]
fn build_failure_reports_the_build_log() {
    let Some(gpu) = gpu("build_failure_reports_the_build_log") else {
        return;
    };
    let broken = "__kernel void broken(__global uint* out) { out[0] = undefined_thing_42; }";
    let err = gpu
        .program("deliberately-broken", &[COMMON_CL, broken], "-D FOO=1")
        .unwrap_err();
    let msg = err.to_string();
    eprintln!("{msg}");
    assert!(matches!(err, Error::OpenCl(_)), "{err:?}");
    assert!(msg.contains("deliberately-broken"), "{msg}");
    assert!(msg.contains("build log"), "{msg}");
    // The compiler's complaint names the identifier.
    assert!(msg.contains("undefined_thing_42"), "{msg}");
    assert!(msg.contains("-cl-std=CL1.2 -D FOO=1"), "{msg}");
    // Failures are not cached: the same call fails again.
    assert!(gpu
        .program("deliberately-broken", &[COMMON_CL, broken], "-D FOO=1")
        .is_err());
    // A source with a NUL byte is an error too, not a panic.
    assert!(gpu.program("nul", &["\0"], "").is_err());
    assert!(gpu.program("empty", &[], "").is_err());
}

#[test]
fn program_cache_returns_the_same_program() {
    let Some(gpu) = gpu("program_cache_returns_the_same_program") else {
        return;
    };
    let a = gpu
        .program("cache-test", &[COMMON_CL, SELFTEST_CL], "")
        .unwrap();
    let b = gpu
        .program("cache-test", &[COMMON_CL, SELFTEST_CL], "")
        .unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    let c = gpu
        .program("cache-test", &[COMMON_CL, SELFTEST_CL], "-D UNUSED=1")
        .unwrap();
    assert!(!Arc::ptr_eq(&a, &c));
    // Concurrent callers share one build.
    let handles: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(move || {
                gpu.program("cache-test-threads", &[COMMON_CL, SELFTEST_CL], "")
                    .unwrap()
            })
        })
        .collect();
    let programs: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert!(programs.windows(2).all(|w| Arc::ptr_eq(&w[0], &w[1])));
}

#[test]
fn bad_device_index_is_a_clear_error() {
    let Some(_) = gpu("bad_device_index_is_a_clear_error") else {
        return;
    };
    let list = gpu::devices().unwrap();
    let e = select_device(&list, DeviceSelector::Auto, Some("999"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("GEMP_DEVICE=999 is out of range"), "{e}");
    assert!(e.contains(&list[0].name), "{e}");
    let e = Gpu::new(DeviceSelector::Index(999))
        .unwrap_err()
        .to_string();
    assert!(e.contains("device index 999 is out of range"), "{e}");
    assert!(e.contains("available devices"), "{e}");

    // Through the environment, in a child process (tests share this process's environment).
    let out = Command::new(env!("CARGO_BIN_EXE_gemp"))
        .arg("devices")
        .env("GEMP_DEVICE", "999")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("GEMP_DEVICE=999 is out of range"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn devices_command_lists_the_device() {
    let Some(gpu) = gpu("devices_command_lists_the_device") else {
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_gemp"))
        .arg("devices")
        .env_remove("GEMP_DEVICE")
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&gpu.info().name), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with('*')), "{stdout}");
    let out = Command::new(env!("CARGO_BIN_EXE_gemp"))
        .args(["devices", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json.as_array().is_some_and(|a| !a.is_empty()));
}

#[test]
fn no_platform_is_a_clean_error() {
    // An ICD loader pointed at an empty vendor directory sees no platform (ocl-icd and the Khronos
    // loader both read OCL_ICD_VENDORS).
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gemp"))
        .arg("devices")
        .env("OCL_ICD_VENDORS", empty.path())
        .env("OCL_ICD_FILENAMES", "")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        eprintln!("skipping no_platform_is_a_clean_error: this ICD loader ignores OCL_ICD_VENDORS");
        return;
    }
    assert!(stderr.contains("no OpenCL platform found"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one-line error: {stderr}");
}

#[test]
fn buffers_and_launch_errors() {
    let Some(gpu) = gpu("buffers_and_launch_errors") else {
        return;
    };
    // Zero-length buffers are allowed and read back empty.
    let empty = gpu.buffer_from::<u32>("empty", &[], true).unwrap();
    assert!(empty.is_empty());
    assert_eq!(gpu.read(&empty).unwrap(), Vec::<u32>::new());
    let empty = gpu.zeroed::<u64>("empty zeroed", 0).unwrap();
    assert_eq!(gpu.read(&empty).unwrap(), Vec::<u64>::new());

    let zeroed = gpu.zeroed::<u32>("zeroed", 1000).unwrap();
    assert_eq!(gpu.read(&zeroed).unwrap(), vec![0u32; 1000]);
    gpu.write(&zeroed, 10, &[1, 2, 3]).unwrap();
    assert_eq!(gpu.read_prefix(&zeroed, 14).unwrap()[9..], [0, 1, 2, 3, 0]);
    gpu.zero(&zeroed).unwrap();
    assert_eq!(gpu.read(&zeroed).unwrap(), vec![0u32; 1000]);
    assert!(gpu.write(&zeroed, 999, &[1, 2]).is_err());
    assert!(gpu.read_prefix(&zeroed, 1001).is_err());

    // Larger than the device's largest allocation: an error naming the buffer, no allocation.
    let too_many = (gpu.info().max_alloc_bytes / 8 + 1) as usize;
    let e = gpu.zeroed::<u64>("huge", too_many).unwrap_err().to_string();
    assert!(
        e.contains("`huge`") && e.contains("CL_DEVICE_MAX_MEM_ALLOC_SIZE"),
        "{e}"
    );

    let program = gpu
        .program("selftest", &[COMMON_CL, SELFTEST_CL], "")
        .unwrap();
    let data = gpu.buffer_from("data", &[1u32, 2, 3], true).unwrap();
    let out = gpu.zeroed::<u32>("out", 3).unwrap();
    // Wrong argument type (u64 for uint) and wrong count: errors naming the kernel.
    let e = gpu
        .kernel(&program, "selftest_lower_bound", |k| {
            k.arg(data.buffer())
                .arg(3u64)
                .arg(data.buffer())
                .arg(3u32)
                .arg(out.buffer())
                .arg(out.buffer());
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("selftest_lower_bound"), "{e}");
    let e = gpu
        .kernel(&program, "selftest_lower_bound", |k| {
            k.arg(data.buffer());
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("selftest_lower_bound"), "{e}");
    assert!(gpu.kernel(&program, "no_such_kernel", |_| {}).is_err());
    // A typed argument struct builds only the kernels it declares.
    let typed = SelftestLowerBoundArgs {
        sorted: &data,
        n: 3,
        queries: &data,
        q: 3,
        lower: &out,
        upper: &out,
    };
    let e = gpu
        .kernel_named(&program, "selftest_has_edge", typed)
        .unwrap_err()
        .to_string();
    assert!(e.contains("selftest_has_edge"), "{e}");
    gpu.kernel_from(&program, typed).unwrap();

    let kernel = gpu
        .kernel(&program, "selftest_lower_bound", |k| {
            k.arg(data.buffer())
                .arg(3u32)
                .arg(data.buffer())
                .arg(3u32)
                .arg(out.buffer())
                .arg(out.buffer());
        })
        .unwrap();
    // Global size not a multiple of the local size: a clear error before OpenCL sees it.
    let e = gpu.run(&kernel, 3, Some(2)).unwrap_err().to_string();
    assert!(e.contains("not a multiple"), "{e}");
    // An empty launch does nothing.
    gpu.run(&kernel, 0, Some(64)).unwrap();
    gpu.run(&kernel, 3, None).unwrap();
    gpu.finish().unwrap();
    assert_eq!(gpu.read(&out).unwrap(), vec![1, 2, 3]);
}
