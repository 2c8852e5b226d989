//! The `gemp` command line: a thin shell over the library (see `gemp --help`).

/// Counts heap bytes so `--memory-limit` can stop a query with a clear error.
#[global_allocator]
static ALLOCATOR: gemp::util::memory::CountingAllocator = gemp::util::memory::CountingAllocator;

mod cli;

fn main() -> std::process::ExitCode {
    gemp::util::memory::keep_freed_memory();
    cli::main()
}
