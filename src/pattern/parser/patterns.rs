//! Path patterns: `(a:Label {k: v})-[r:T1|T2 {k: v}]->(b)<--(c)`.

use super::{PResult, Parser};
use crate::pattern::ast::{
    Direction, Hops, LabelExpr, Name, NodePattern, PathPattern, PropertyEntry, RelPattern,
};
use crate::pattern::error::QueryError;
use crate::pattern::lexer::TokenKind;

/// What a relationship pattern's brackets hold.
#[derive(Default)]
struct RelDetail {
    var: Option<Name>,
    types: Vec<Name>,
    props: Vec<PropertyEntry>,
    hops: Option<Hops>,
}

impl Parser<'_> {
    /// A node followed by any number of relationship-node steps.
    pub(super) fn path_pattern(&mut self) -> PResult<PathPattern> {
        self.reject_unsupported_path_start()?;
        let first = self.node_pattern()?;
        let start = first.span;
        let mut nodes = vec![first];
        let mut rels = Vec::new();
        while self.at_relationship_start() {
            rels.push(self.rel_pattern()?);
            nodes.push(self.node_pattern()?);
        }
        Ok(PathPattern {
            nodes,
            rels,
            clause: 0,
            name: None,
            span: start.to(self.prev_span),
        })
    }

    /// A path pattern of a `MATCH` clause, which may be named: `p = (a)-->(b)`.
    pub(super) fn match_path_pattern(&mut self) -> PResult<PathPattern> {
        let name = match (self.peek_nth(0), self.peek_nth(1)) {
            (TokenKind::Ident(_) | TokenKind::QuotedIdent(_), TokenKind::Eq) => {
                let name = self.variable_name("a path variable")?;
                self.expect(&TokenKind::Eq, "'=' after the path variable")?;
                Some(name)
            }
            _ => None,
        };
        let mut path = self.path_pattern()?;
        if let Some(n) = &name {
            path.span = n.span.to(path.span);
        }
        path.name = name;
        Ok(path)
    }

    /// True at `-` or `<-`, which can only continue a path here.
    fn at_relationship_start(&self) -> bool {
        match self.peek_nth(0) {
            TokenKind::Minus => true,
            TokenKind::Lt => self.peek_nth(1) == &TokenKind::Minus,
            _ => false,
        }
    }

    /// `( [var] [:labels] [{props}] )`
    fn node_pattern(&mut self) -> PResult<NodePattern> {
        let open = self.expect(&TokenKind::LParen, "'(' to start a node pattern")?;
        let var = self.optional_variable("a variable, label or ')' in node pattern")?;
        let labels = self.label_expr()?;
        let has_map = matches!(self.peek_kind(), TokenKind::LBrace);
        let props = self.property_map()?;
        self.reject_inline_where()?;
        let close = self.expect(&TokenKind::RParen, "')' after node pattern")?;
        Ok(NodePattern {
            var,
            labels,
            props,
            has_map,
            span: open.to(close),
        })
    }

    /// The variable of a node or relationship pattern, if the next token is a name. A keyword there is
    /// an error (with a hint to quote it), since no pattern element starts with one.
    fn optional_variable(&mut self, what: &str) -> PResult<Option<Name>> {
        match self.peek_kind() {
            TokenKind::Ident(_) | TokenKind::QuotedIdent(_) | TokenKind::Keyword(_) => {
                self.variable_name(what).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// `:A|B:C` (`|:B` is accepted for `|B`); empty when the next token is not `:`.
    pub(super) fn label_expr(&mut self) -> PResult<LabelExpr> {
        let mut all_of = Vec::new();
        while self.eat(&TokenKind::Colon).is_some() {
            let mut alternatives = vec![self.symbolic_name("a label name after ':'")?];
            while self.eat(&TokenKind::Pipe).is_some() {
                let _ = self.eat(&TokenKind::Colon);
                alternatives.push(self.symbolic_name("a label name after '|'")?);
            }
            all_of.push(alternatives);
        }
        Ok(LabelExpr { all_of })
    }

    /// `-[...]->`, `<-[...]-`, `-[...]-`, `-->`, `<--`, `--` (and `<-->`, meaning either direction).
    fn rel_pattern(&mut self) -> PResult<RelPattern> {
        let start = self.peek().span;
        let left = self.eat(&TokenKind::Lt).is_some();
        self.expect(&TokenKind::Minus, "'-' in relationship pattern")?;
        let detail = match self.eat(&TokenKind::LBracket) {
            Some(_) => Some(self.rel_detail()?),
            None => None,
        };
        let what = match detail {
            Some(_) => "'-' after ']' in relationship pattern",
            None => "'-' or '[' in relationship pattern",
        };
        self.expect(&TokenKind::Minus, what)?;
        let right = self.eat(&TokenKind::Gt).is_some();
        let direction = match (left, right) {
            (true, false) => Direction::Left,
            (false, true) => Direction::Right,
            _ => Direction::Both,
        };
        let RelDetail {
            var,
            types,
            props,
            hops,
        } = detail.unwrap_or_default();
        Ok(RelPattern {
            var,
            types,
            direction,
            props,
            hops,
            span: start.to(self.prev_span),
        })
    }

    /// The inside of `[...]` (after `[`, through `]`).
    fn rel_detail(&mut self) -> PResult<RelDetail> {
        let var = self.optional_variable("a variable, type or ']' in relationship pattern")?;
        let mut types = Vec::new();
        if self.eat(&TokenKind::Colon).is_some() {
            types.push(self.symbolic_name("a relationship type after ':'")?);
            while self.eat(&TokenKind::Pipe).is_some() {
                let _ = self.eat(&TokenKind::Colon);
                types.push(self.symbolic_name("a relationship type after '|'")?);
            }
            if self.at(&TokenKind::Colon) {
                return Err(Box::new(
                    QueryError::syntax("a relationship has exactly one type", self.peek().span)
                        .with_help("write alternatives as `:TYPE1|TYPE2`"),
                ));
            }
        }
        let hops = self.hops()?;
        let props = self.property_map()?;
        if hops.is_none() && self.at(&TokenKind::Star) {
            return Err(Box::new(
                QueryError::syntax(
                    "the hop bounds go before the property map",
                    self.peek().span,
                )
                .with_help("write `[:T*1..3 {key: value}]`"),
            ));
        }
        self.reject_inline_where()?;
        self.expect(
            &TokenKind::RBracket,
            "']' to close the relationship pattern",
        )?;
        Ok(RelDetail {
            var,
            types,
            props,
            hops,
        })
    }

    /// `*`, `*k`, `*min..max`, `*..max`, `*min..` after the types; `None` when the next token is
    /// not `*`. The bounds are read from the source text between `*` and the next token that is not
    /// a number or a dot (the lexer may split `1..3` as `1.` `.3`).
    fn hops(&mut self) -> PResult<Option<Hops>> {
        let Some(star) = self.eat(&TokenKind::Star) else {
            return Ok(None);
        };
        let mut end = star;
        while let TokenKind::Integer(_) | TokenKind::Float(_) | TokenKind::Dot = self.peek_kind() {
            if self.peek().span.start != end.end {
                break;
            }
            end = self.advance();
        }
        let span = star.to(end);
        let text = self.text(span).trim_start_matches('*');
        let bound = |t: &str| -> PResult<Option<u64>> {
            if t.is_empty() {
                return Ok(None);
            }
            t.parse::<u64>().map(Some).map_err(|_| {
                Box::new(
                    QueryError::syntax(format!("malformed hop bounds `*{text}`"), span).with_help(
                        "write `*k`, `*min..max` or `*..max` with non-negative integers",
                    ),
                )
            })
        };
        let (min, max, exact) = match text.split_once("..") {
            Some((lo, hi)) => (bound(lo)?, bound(hi)?, false),
            None => {
                let k = bound(text)?;
                (k, k, k.is_some())
            }
        };
        Ok(Some(Hops {
            min,
            max,
            exact,
            span,
        }))
    }

    /// `{key: value, ...}`; empty when the next token is not `{`.
    pub(super) fn property_map(&mut self) -> PResult<Vec<PropertyEntry>> {
        if let TokenKind::Param(_) = self.peek_kind() {
            return Err(Box::new(
                QueryError::unsupported(
                    "a parameter as a property map in a pattern",
                    self.peek().span,
                )
                .with_help("write the properties out: {key: $value, ...}"),
            ));
        }
        let mut props = Vec::new();
        if self.eat(&TokenKind::LBrace).is_none() {
            return Ok(props);
        }
        if self.eat(&TokenKind::RBrace).is_some() {
            return Ok(props);
        }
        loop {
            let key = self.symbolic_name("a property key")?;
            self.expect(&TokenKind::Colon, "':' after property key")?;
            let value = self.expr()?;
            props.push(PropertyEntry { key, value });
            if self.eat(&TokenKind::Comma).is_none() {
                break;
            }
        }
        self.expect(&TokenKind::RBrace, "',' or '}' in property map")?;
        Ok(props)
    }

    /// A label, relationship type or property key: any word, keywords included, or a quoted name.
    pub(super) fn symbolic_name(&mut self, what: &str) -> PResult<Name> {
        let name = match self.peek_kind() {
            TokenKind::Ident(name) | TokenKind::QuotedIdent(name) => name.clone(),
            TokenKind::Keyword(_) => self.text(self.peek().span).to_string(),
            _ => return Err(self.error_expected(what).into()),
        };
        Ok(Name {
            name,
            span: self.advance(),
        })
    }
}
