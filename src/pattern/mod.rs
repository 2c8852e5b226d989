//! The pattern query language: lexer, parser, AST, semantic checks and planner.
