//! Shared by the file-based fuzz targets: writes the input to a per-process file in /dev/shm (or the
//! temp dir) under the name the loader detects.

use std::path::PathBuf;

pub fn input_file(name: &str, data: &[u8]) -> PathBuf {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let dir = base.join(format!("gemp-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(name);
    std::fs::write(&path, data).expect("write fuzz input");
    path
}
