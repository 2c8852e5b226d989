//! The shell's meta-commands (`:help`, `:schema`, `:format csv`, …): a line that starts with `:`
//! where a statement would start. They need no `;`.

/// One meta-command, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Meta {
    /// `:help`.
    Help,
    /// `:schema`: what `gemp info` shows.
    Schema,
    /// `:explain <query>`: how the query would run.
    Explain(String),
    /// `:timings on|off` (`None`: show the setting).
    Timings(Option<bool>),
    /// `:semantics <name>` (`None`: show the setting).
    Semantics(Option<String>),
    /// `:backend <name>` (`None`: show the setting).
    Backend(Option<String>),
    /// `:format table|csv|json|jsonl` (`None`: show the setting).
    Format(Option<String>),
    /// `:param name=value`.
    Param(String),
    /// `:params` (list), `:params clear`.
    Params {
        /// Forget them all.
        clear: bool,
    },
    /// `:quit`, `:exit`.
    Quit,
}

/// What `:help` prints.
pub const HELP: &str = "\
Statements end with `;` and may span lines; Ctrl-C stops a running query (or clears the line),
Ctrl-D or :quit leaves.

  :help                          this text
  :schema                        labels, relationship types, properties, counts (gemp info)
  :explain <query>               how a query would run (gemp explain)
  :timings on|off                print each query's stage times
  :semantics <name>              isomorphism, homomorphism or cypher (default: the query's own)
  :backend <name>                auto, opencl or host
  :format table|csv|json|jsonl   how rows are printed
  :param name=value              a query parameter ($name; JSON scalars are typed: 42, \"x\")
  :params [clear]                list (or forget) the parameters
  :quit, :exit                   leave the shell
";

/// Parses a meta-command line (it starts with `:`).
pub fn parse(line: &str) -> Result<Meta, String> {
    let line = line.trim().trim_end_matches(';').trim_end();
    let body = line.strip_prefix(':').unwrap_or(line);
    let (name, arg) = match body.split_once(char::is_whitespace) {
        Some((n, a)) => (n, a.trim()),
        None => (body, ""),
    };
    let arg_opt = || (!arg.is_empty()).then(|| arg.to_owned());
    let no_arg = |meta: Meta| match arg {
        "" => Ok(meta),
        _ => Err(format!(":{name} takes no argument")),
    };
    match name.to_ascii_lowercase().as_str() {
        "help" | "h" | "?" => no_arg(Meta::Help),
        "schema" => no_arg(Meta::Schema),
        "quit" | "exit" | "q" => no_arg(Meta::Quit),
        "explain" if arg.is_empty() => Err(":explain takes a query: :explain MATCH …".into()),
        "explain" => Ok(Meta::Explain(arg.to_owned())),
        "timings" => match arg.to_ascii_lowercase().as_str() {
            "" => Ok(Meta::Timings(None)),
            "on" => Ok(Meta::Timings(Some(true))),
            "off" => Ok(Meta::Timings(Some(false))),
            _ => Err(format!(":timings takes on or off, not `{arg}`")),
        },
        "semantics" => Ok(Meta::Semantics(arg_opt())),
        "backend" => Ok(Meta::Backend(arg_opt())),
        "format" => Ok(Meta::Format(arg_opt())),
        "param" if arg.is_empty() => Ok(Meta::Params { clear: false }),
        "param" => Ok(Meta::Param(arg.to_owned())),
        "params" => match arg {
            "" => Ok(Meta::Params { clear: false }),
            "clear" => Ok(Meta::Params { clear: true }),
            _ => Err(format!(":params takes nothing or `clear`, not `{arg}`")),
        },
        _ => Err(format!("unknown command :{name} (:help lists them)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_commands_parse_with_and_without_arguments() {
        assert_eq!(parse(":help"), Ok(Meta::Help));
        assert_eq!(parse("  :schema ; "), Ok(Meta::Schema));
        assert_eq!(parse(":EXIT"), Ok(Meta::Quit));
        assert_eq!(
            parse(":explain MATCH (p) RETURN p;"),
            Ok(Meta::Explain("MATCH (p) RETURN p".into()))
        );
        assert_eq!(parse(":timings on"), Ok(Meta::Timings(Some(true))));
        assert_eq!(parse(":timings"), Ok(Meta::Timings(None)));
        assert_eq!(parse(":format csv"), Ok(Meta::Format(Some("csv".into()))));
        assert_eq!(parse(":backend"), Ok(Meta::Backend(None)));
        assert_eq!(parse(":param n = 3"), Ok(Meta::Param("n = 3".into())));
        assert_eq!(parse(":params clear"), Ok(Meta::Params { clear: true }));
    }

    #[test]
    fn bad_meta_commands_say_what_is_wrong() {
        assert!(parse(":nope").unwrap_err().contains(":help"));
        assert!(parse(":timings maybe").unwrap_err().contains("on or off"));
        assert!(parse(":schema now").unwrap_err().contains("no argument"));
        assert!(parse(":explain").unwrap_err().contains("takes a query"));
    }
}
