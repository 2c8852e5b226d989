use super::*;

fn kinds(src: &str) -> Vec<TokenKind> {
    tokenize(src)
        .unwrap_or_else(|e| panic!("{}", e.render(src, None)))
        .into_iter()
        .map(|t| t.kind)
        .collect()
}

fn ident(s: &str) -> TokenKind {
    TokenKind::Ident(s.to_string())
}

#[test]
fn punctuation_and_operators() {
    use TokenKind::*;
    assert_eq!(
        kinds("( ) [ ] { } , . : | ; = <> != < <= > >= =~ + - * / %"),
        vec![
            LParen, RParen, LBracket, RBracket, LBrace, RBrace, Comma, Dot, Colon, Pipe, Semicolon,
            Eq, Ne, Ne, Lt, Le, Gt, Ge, RegexMatch, Plus, Minus, Star, Slash, Percent, Eof
        ]
    );
}

#[test]
fn arrows_are_separate_dashes_and_angles() {
    use TokenKind::*;
    assert_eq!(
        kinds("-->"),
        vec![Minus, Minus, Gt, Eof],
        "the parser assembles arrows"
    );
    assert_eq!(kinds("<--"), vec![Lt, Minus, Minus, Eof]);
    assert_eq!(kinds("]->("), vec![RBracket, Minus, Gt, LParen, Eof]);
    assert_eq!(kinds("a<-1"), vec![ident("a"), Lt, Minus, Integer(1), Eof]);
}

#[test]
fn words_keywords_and_quoted_names() {
    assert_eq!(
        kinds("match Match MATCH person _x1 été `a b` `MATCH` `x``y`"),
        vec![
            TokenKind::Keyword(Keyword::Match),
            TokenKind::Keyword(Keyword::Match),
            TokenKind::Keyword(Keyword::Match),
            ident("person"),
            ident("_x1"),
            ident("été"),
            TokenKind::QuotedIdent("a b".into()),
            TokenKind::QuotedIdent("MATCH".into()),
            TokenKind::QuotedIdent("x`y".into()),
            TokenKind::Eof,
        ]
    );
    assert_eq!(Keyword::from_word("dEsCeNdInG"), Some(Keyword::Descending));
    assert_eq!(Keyword::from_word("count"), None);
    assert!(is_identifier("été_2"));
    assert!(!is_identifier("2x"));
    assert!(!is_identifier("a b"));
    assert!(!is_identifier(""));
}

#[test]
fn numbers() {
    use TokenKind::*;
    assert_eq!(
        kinds("0 42 0x1F 0XAbC 18446744073709551615 1.5 .25 1e3 2E-2 3e+1 1..3"),
        vec![
            Integer(0),
            Integer(42),
            Integer(31),
            Integer(0xABC),
            Integer(u64::MAX),
            Float(1.5),
            Float(0.25),
            Float(1000.0),
            Float(0.02),
            Float(30.0),
            Integer(1),
            Dot,
            Dot,
            Integer(3),
            Eof
        ]
    );
    assert_eq!(kinds("a.x"), vec![ident("a"), Dot, ident("x"), Eof]);
    assert_eq!(kinds("1.e"), vec![Integer(1), Dot, ident("e"), Eof]);
    for bad in [
        "18446744073709551616",
        "0x",
        "0x1G",
        "12ab",
        "1e400",
        "1.5x",
    ] {
        assert!(tokenize(bad).is_err(), "{bad}");
    }
}

#[test]
fn strings_and_parameters() {
    assert_eq!(
        kinds(r#"'a\'b' "c\"d" 'e"f' "g'h" '\\' $p $_q1 $0"#),
        vec![
            TokenKind::String("a'b".into()),
            TokenKind::String("c\"d".into()),
            TokenKind::String("e\"f".into()),
            TokenKind::String("g'h".into()),
            TokenKind::String("\\".into()),
            TokenKind::Param("p".into()),
            TokenKind::Param("_q1".into()),
            TokenKind::Param("0".into()),
            TokenKind::Eof,
        ]
    );
}

#[test]
fn comments_are_skipped() {
    use TokenKind::*;
    assert_eq!(
        kinds("a // to the end\n/* block\n * more */ b /**/ c // last"),
        vec![ident("a"), ident("b"), ident("c"), Eof]
    );
    assert_eq!(kinds("a/b"), vec![ident("a"), Slash, ident("b"), Eof]);
    assert_eq!(kinds("// only"), vec![Eof]);
}

#[test]
fn spans_count_lines_and_characters() {
    let src = "MATCH (é:Ünï)\n  RETURN é // c\n";
    let tokens = tokenize(src).expect("valid");
    let at = |i: usize| {
        let t: &Token = &tokens[i];
        (&src[t.span.start..t.span.end], t.span.line, t.span.column)
    };
    assert_eq!(at(0), ("MATCH", 1, 1));
    assert_eq!(at(2), ("é", 1, 8));
    assert_eq!(at(4), ("Ünï", 1, 10));
    assert_eq!(at(5), (")", 1, 13));
    assert_eq!(at(6), ("RETURN", 2, 3));
    assert_eq!(at(7), ("é", 2, 10));
    // End of input sits just after the last token, not after the trailing comment.
    assert_eq!(at(8), ("", 2, 11));
    assert_eq!(tokens[8].kind, TokenKind::Eof);
}

#[test]
fn errors_point_at_the_offending_text() {
    let cases = [
        ("a # b", 1, 3, "unexpected character `#`"),
        ("a\n  'open", 2, 3, "unterminated string literal"),
        ("`open", 1, 1, "unterminated quoted name"),
        ("``", 1, 1, "empty quoted name"),
        ("a /* open", 1, 3, "unterminated block comment"),
        ("$ x", 1, 1, "expected a parameter name after `$`"),
        ("'\\x'", 1, 2, "unknown escape sequence `\\x`"),
        ("'\\u00'", 1, 2, "invalid unicode escape"),
        ("'\\UFFFFFFFF'", 1, 2, "invalid unicode escape"),
        ("! =", 1, 1, "unexpected character `!`"),
    ];
    for (src, line, column, message) in cases {
        let e = tokenize(src).expect_err(src);
        let span = e.span.expect("span");
        assert_eq!((span.line, span.column), (line, column), "{src}: {e}");
        assert!(e.message.contains(message), "{src}: {e}");
    }
}

#[test]
fn the_lexer_stops_after_end_or_error() {
    let mut lexer = Lexer::new("a");
    assert!(matches!(lexer.next(), Some(Ok(_))));
    assert!(matches!(
        lexer.next(),
        Some(Ok(Token {
            kind: TokenKind::Eof,
            ..
        }))
    ));
    assert!(lexer.next().is_none());
    let mut lexer = Lexer::new("# a");
    assert!(matches!(lexer.next(), Some(Err(_))));
    assert!(lexer.next().is_none());
}

#[test]
fn descriptions() {
    assert_eq!(TokenKind::RParen.describe(), "`)`");
    assert_eq!(
        TokenKind::Keyword(Keyword::Return).describe(),
        "keyword `RETURN`"
    );
    assert_eq!(ident("x").describe(), "identifier `x`");
    assert_eq!(TokenKind::Eof.describe(), "end of input");
    assert_eq!(TokenKind::Param("p".into()).describe(), "parameter `$p`");
}
