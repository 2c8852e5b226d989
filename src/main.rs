//! The `gemp` command line: a thin shell over the library (see `gemp --help`).

fn main() -> std::process::ExitCode {
    gemp::cli::main()
}
