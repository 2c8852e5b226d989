//! `gemp completions <shell>` and `gemp man`: shell completion scripts and the man page, both
//! generated from the clap definitions (clap_complete, clap_mangen).

use std::io::Write;

use anyhow::Context;
use clap::{Args, CommandFactory};

/// Arguments of `gemp completions`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  gemp completions bash > ~/.local/share/bash-completion/completions/gemp
  gemp completions zsh > ~/.zfunc/_gemp
  gemp completions fish > ~/.config/fish/completions/gemp.fish")]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `gemp man`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  gemp man | man -l -
  gemp man match | man -l -
  gemp man --dir /usr/local/share/man/man1      # gemp.1, gemp-match.1, gemp-shell.1, …")]
pub struct ManArgs {
    /// A subcommand's page (gemp-match(1), …) instead of gemp(1).
    pub command: Option<String>,
    /// Write every page (gemp.1 and one per subcommand) into this directory instead.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<std::path::PathBuf>,
}

/// `gemp completions`.
pub fn completions(args: CompletionsArgs) -> anyhow::Result<()> {
    let mut command = super::Cli::command();
    // Into memory first: clap_complete panics on a write error (a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "gemp", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(())
}

/// `gemp man`: gemp(1), which lists the subcommands, or one subcommand's page, or all pages.
pub fn man(args: ManArgs) -> anyhow::Result<()> {
    let mut command = super::Cli::command().disable_help_subcommand(true);
    // Names the subcommands' pages gemp-match, gemp-shell, ….
    command.build();
    if let Some(dir) = &args.dir {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        return write_pages(&command, dir)
            .with_context(|| format!("writing the pages into {}", dir.display()));
    }
    let page = match &args.command {
        None => command,
        Some(name) => command
            .find_subcommand(name)
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("no subcommand `{name}` (gemp --help lists them)"))?,
    };
    let mut out = std::io::stdout().lock();
    page_of(page).render(&mut out)?;
    out.flush()?;
    Ok(())
}

/// The page of `command` (a built one: subcommands are named gemp-match, …), its source line
/// naming gemp's version.
fn page_of(command: clap::Command) -> clap_mangen::Man {
    clap_mangen::Man::new(command).source(format!("gemp {}", env!("CARGO_PKG_VERSION")))
}

/// Writes the page of `command` and of each of its subcommands, recursively, into `dir`.
fn write_pages(command: &clap::Command, dir: &std::path::Path) -> std::io::Result<()> {
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub, dir)?;
    }
    page_of(command.clone()).generate_to(dir)?;
    Ok(())
}
