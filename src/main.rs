//! The `gemp` command line: a thin shell over the library (see `gemp --help`).

/// Counts heap bytes so `--memory-limit` can stop a query with a clear error.
#[global_allocator]
static ALLOCATOR: gemp::memory::CountingAllocator = gemp::memory::CountingAllocator;

fn main() -> std::process::ExitCode {
    gemp::memory::keep_freed_memory();
    gemp::cli::main()
}
