//! Parsing the Flink SQL subset into lowwater's statement tree
//! ([`crate::ast`]).
//!
//! The `sqlparser` crate tokenizes the file and parses expressions, select
//! items and names; the statement shapes that are Flink's own and that
//! sqlparser does not know (`WATERMARK FOR`, computed and metadata columns,
//! `TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), ...))`, `SET 'k' = 'v'`) are
//! parsed here on top of its token stream, so every error keeps an exact
//! line and column.

use sqlparser::dialect::GenericDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, Tokenizer};

use crate::ast::{
    deep_error, deep_loc, too_deep, ColumnDef, ColumnKind, CreateTable, Notes, Statement,
    WatermarkClause,
};
use crate::error::{Loc, Result, SqlError};
use crate::inline::Views;
use crate::query;
use crate::tokens::{here, parse_word, pe, peek_word};
use crate::types::SqlType;

/// The most statements a job file may hold (a file of a million INSERTs
/// is refused at once instead of being parsed for minutes).
pub const MAX_STATEMENTS: usize = 10_000;

/// Parses a whole job file.
pub fn parse_script(sql: &str) -> Result<Vec<Statement>> {
    parse_all(sql).map_err(|mut e| {
        if e.loc.line == 0 {
            // sqlparser has no place for "end of input": name the file's end.
            let line = sql.lines().count().max(1) as u64;
            let column = sql.lines().last().map_or(0, |l| l.chars().count()) as u64 + 1;
            e.loc = Loc { line, column };
            e.message = e.message.replace("found: EOF", "found the end of the file");
        }
        e
    })
}

fn parse_all(sql: &str) -> Result<Vec<Statement>> {
    let dialect = GenericDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .map_err(|e| SqlError::new(Loc::from_sp(e.location), e.message))?;
    // `ROW<a ROW<b INT>>`: Flink SQL has no shift operators, so `>>` is two
    // closing angle brackets.
    let tokens = tokens
        .into_iter()
        .flat_map(|t| match t.token {
            Token::ShiftRight => {
                let mut second = t.clone();
                second.span.start.column += 1;
                vec![
                    sqlparser::tokenizer::TokenWithSpan::new(Token::Gt, t.span),
                    sqlparser::tokenizer::TokenWithSpan::new(Token::Gt, second.span),
                ]
            }
            _ => vec![t],
        })
        .collect();
    let mut p = Parser::new(&dialect).with_tokens_with_locations(tokens);
    let mut out = Vec::new();
    let mut views = Views::new();
    let mut notes = Notes::new();
    loop {
        while p.consume_token(&Token::SemiColon) {}
        if p.peek_token().token == Token::EOF {
            break;
        }
        // Statement sets group INSERTs into one job in Flink; lowwater always
        // runs every INSERT of a file as one job, so the wrappers are
        // accepted and the INSERTs inside planned as usual:
        // `EXECUTE STATEMENT SET BEGIN ... END;` and `BEGIN STATEMENT SET; ... END;`.
        if p.parse_keywords(&[
            Keyword::EXECUTE,
            Keyword::STATEMENT,
            Keyword::SET,
            Keyword::BEGIN,
        ]) || p.parse_keywords(&[Keyword::BEGIN, Keyword::STATEMENT, Keyword::SET])
            || p.parse_keyword(Keyword::END)
        {
            continue;
        }
        if out.len() >= MAX_STATEMENTS {
            return Err(SqlError::new(
                here(&p),
                format!(
                    "a job file holds at most {MAX_STATEMENTS} statements; this one has more \
                     (split it into several jobs)"
                ),
            ));
        }
        if let Some(st) = statement(&mut p, &mut views, &mut notes)? {
            crate::portability::statement(&st, &mut notes);
            let insert = match &st {
                Statement::Insert(i) => Some(i.loc),
                Statement::JoinInsert(i) => Some(i.loc),
                Statement::IntervalInsert(i) => Some(i.loc),
                _ => None,
            };
            out.push(st);
            if let Some(insert) = insert {
                out.extend(query::on_conflict(&mut p, insert)?);
            }
        }
        let next = p.peek_token();
        if next.token != Token::EOF && !p.consume_token(&Token::SemiColon) {
            return Err(SqlError::new(
                Loc::from_sp(next.span.start),
                format!("expected ';' to end the statement, found {}", next.token),
            ));
        }
    }
    if !notes.is_empty() {
        out.push(Statement::FlinkNotes(notes));
    }
    Ok(out)
}

fn statement(p: &mut Parser, views: &mut Views, notes: &mut Notes) -> Result<Option<Statement>> {
    let loc = here(p);
    if p.parse_keyword(Keyword::SET) {
        return set(p, loc).map(Some);
    }
    if p.parse_keyword(Keyword::CREATE) {
        let _ = p.parse_keyword(Keyword::TEMPORARY);
        if p.parse_keyword(Keyword::TABLE) {
            return create_table(p, loc, notes).map(|t| Some(Statement::CreateTable(Box::new(t))));
        }
        if p.parse_keyword(Keyword::VIEW) {
            query::create_view(p, views, notes)?;
            return Ok(None);
        }
        return Err(SqlError::new(
            here(p),
            "only CREATE TABLE and CREATE VIEW are supported (no functions or catalogs)",
        ));
    }
    if p.parse_keyword(Keyword::INSERT) {
        return query::insert(p, loc, views, notes).map(Some);
    }
    let t = p.peek_token();
    Err(SqlError::new(
        loc,
        format!(
            "unsupported statement starting with {}; lowwater runs SET, CREATE TABLE and \
             INSERT INTO ... SELECT over window table functions",
            t.token
        ),
    ))
}

fn set(p: &mut Parser, loc: Loc) -> Result<Statement> {
    let key = quoted(p, "the option key, e.g. SET 'parallelism.default' = '2'")?;
    pe(p.expect_token(&Token::Eq))?;
    let value = quoted(p, "the option value in quotes")?;
    Ok(Statement::Set { key, value, loc })
}

fn quoted(p: &mut Parser, what: &str) -> Result<String> {
    let t = p.next_token();
    match t.token {
        Token::SingleQuotedString(s) => Ok(s),
        other => Err(SqlError::new(
            Loc::from_sp(t.span.start),
            format!("expected {what}, found {other}"),
        )),
    }
}

fn create_table(p: &mut Parser, loc: Loc, notes: &mut Notes) -> Result<CreateTable> {
    let _ = p.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let id = pe(p.parse_identifier())?;
    crate::portability::ident(&id, "the table name", here(p), notes);
    let name = id.value;
    if p.peek_keyword(Keyword::WITH) || p.peek_keyword(Keyword::LIKE) || p.peek_keyword(Keyword::AS)
    {
        return Err(SqlError::new(
            here(p),
            format!(
                "table '{name}' has no column list: CREATE TABLE ... LIKE and CREATE TABLE ... AS \
                 SELECT are not supported; write the columns, WATERMARK and options out: \
                 CREATE TABLE {name} (col TYPE, ...) WITH (...)"
            ),
        ));
    }
    pe(p.expect_token(&Token::LParen))?;
    let mut columns = Vec::new();
    let mut watermark = None;
    let mut primary_key = None;
    loop {
        let at = here(p);
        if parse_word(p, "WATERMARK") {
            if watermark.is_some() {
                return Err(SqlError::new(
                    at,
                    "a table can have only one WATERMARK clause",
                ));
            }
            pe(p.expect_keyword(Keyword::FOR))?;
            let column = pe(p.parse_identifier())?.value;
            pe(p.expect_keyword(Keyword::AS))?;
            let expr = pe(p.parse_expr())?;
            if too_deep(&expr) {
                let at = deep_loc(&expr, loc);
                return Err(deep_error(at, vec![expr]));
            }
            watermark = Some(WatermarkClause {
                column,
                expr,
                loc: at,
            });
        } else if p.peek_keyword(Keyword::PRIMARY) || p.peek_keyword(Keyword::CONSTRAINT) {
            if primary_key.is_some() {
                return Err(SqlError::new(at, "a table can have only one PRIMARY KEY"));
            }
            primary_key = Some((self::primary_key(p)?, at));
        } else {
            columns.extend(column_def(p, notes)?);
        }
        if p.consume_token(&Token::Comma) {
            continue;
        }
        pe(p.expect_token(&Token::RParen))?;
        break;
    }
    if p.peek_keyword(Keyword::PARTITIONED) || p.peek_keyword(Keyword::COMMENT) {
        return Err(SqlError::new(
            here(p),
            "PARTITIONED BY and table COMMENT are not supported",
        ));
    }
    let mut options = Vec::new();
    if p.parse_keyword(Keyword::WITH) {
        pe(p.expect_token(&Token::LParen))?;
        loop {
            let at = here(p);
            let k = quoted(p, "an option key in quotes, e.g. 'connector'")?;
            pe(p.expect_token(&Token::Eq))?;
            let v = quoted(p, "an option value in quotes")?;
            options.push((k, v, at));
            if !p.consume_token(&Token::Comma) {
                break;
            }
        }
        pe(p.expect_token(&Token::RParen))?;
    }
    if p.peek_keyword(Keyword::LIKE) {
        return Err(SqlError::new(
            here(p),
            format!(
                "CREATE TABLE ... LIKE is not supported: write the columns, WATERMARK and options \
                 that '{name}' takes from the other table out in its own definition"
            ),
        ));
    }
    Ok(CreateTable {
        name,
        loc,
        columns,
        watermark,
        primary_key,
        options,
    })
}

/// `[CONSTRAINT name] PRIMARY KEY (cols) NOT ENFORCED`: Flink owns no data,
/// so it checks no key and accepts only NOT ENFORCED; so does lowwater.
fn primary_key(p: &mut Parser) -> Result<Vec<String>> {
    if p.parse_keyword(Keyword::CONSTRAINT) {
        pe(p.parse_identifier())?;
    }
    pe(p.expect_keywords(&[Keyword::PRIMARY, Keyword::KEY]))?;
    pe(p.expect_token(&Token::LParen))?;
    let cols = pe(p.parse_comma_separated(|p| p.parse_identifier()))?;
    pe(p.expect_token(&Token::RParen))?;
    let at = here(p);
    if !p.parse_keywords(&[Keyword::NOT, Keyword::ENFORCED]) {
        return Err(SqlError::new(
            at,
            "write PRIMARY KEY (...) NOT ENFORCED: as Flink, lowwater does not own the data and \
             checks no key (Flink refuses ENFORCED)",
        ));
    }
    Ok(cols.into_iter().map(|c| c.value).collect())
}

/// One column definition; a `ROW<...>` column gives one column per field,
/// nested ROWs flattened (`payload.user.id`).
fn column_def(p: &mut Parser, notes: &mut Notes) -> Result<Vec<ColumnDef>> {
    let loc = here(p);
    let id = pe(p.parse_identifier())?;
    crate::portability::ident(&id, "the column name", loc, notes);
    let name = id.value;
    if p.parse_keyword(Keyword::AS) {
        let expr = pe(p.parse_expr())?;
        if too_deep(&expr) {
            let at = deep_loc(&expr, loc);
            return Err(deep_error(at, vec![expr]));
        }
        skip_comment(p)?;
        return Ok(vec![ColumnDef {
            name,
            loc,
            kind: ColumnKind::Computed(Box::new(expr)),
            not_null: false,
            path: Vec::new(),
        }]);
    }
    if peek_word(p, "ROW") {
        p.next_token();
        let fields = row_fields(p, std::slice::from_ref(&name))?;
        let _ = p.parse_keywords(&[Keyword::NOT, Keyword::NULL]) || p.parse_keyword(Keyword::NULL);
        if peek_word(p, "METADATA") {
            return Err(SqlError::new(here(p), "a ROW column cannot be METADATA"));
        }
        skip_comment(p)?;
        return Ok(fields
            .into_iter()
            .map(|(path, ty)| ColumnDef {
                name: path.join("."),
                loc,
                kind: ColumnKind::Physical(ty),
                not_null: false,
                path,
            })
            .collect());
    }
    let ty = data_type(p)?;
    let not_null = p.parse_keywords(&[Keyword::NOT, Keyword::NULL]);
    let _ = p.parse_keyword(Keyword::NULL);
    let kind = if parse_word(p, "METADATA") {
        let key = if p.parse_keyword(Keyword::FROM) {
            quoted(p, "the metadata key in quotes, e.g. 'timestamp'")?
        } else {
            name.clone()
        };
        parse_word(p, "VIRTUAL");
        ColumnKind::Metadata { ty, key }
    } else {
        ColumnKind::Physical(ty)
    };
    skip_comment(p)?;
    Ok(vec![ColumnDef {
        name,
        loc,
        kind,
        not_null,
        path: Vec::new(),
    }])
}

fn skip_comment(p: &mut Parser) -> Result<()> {
    if p.parse_keyword(Keyword::COMMENT) {
        quoted(p, "the comment in quotes")?;
    }
    Ok(())
}

const SUPPORTED_TYPES: &str =
    "STRING, VARCHAR(n), CHAR(n), TINYINT, SMALLINT, INT, BIGINT, ROW<name type, ...>, \
     FLOAT, DOUBLE, BOOLEAN, DECIMAL(p, s), DATE, TIMESTAMP(3), TIMESTAMP_LTZ(3)";

fn data_type(p: &mut Parser) -> Result<SqlType> {
    let t = p.next_token();
    let loc = Loc::from_sp(t.span.start);
    let name = match &t.token {
        Token::Word(w) => w.value.to_ascii_uppercase(),
        other => {
            return Err(SqlError::new(
                loc,
                format!("expected a column type, found {other}"),
            ))
        }
    };
    const KNOWN: [&str; 17] = [
        "DATE",
        "DECIMAL",
        "NUMERIC",
        "DEC",
        "STRING",
        "VARCHAR",
        "CHAR",
        "TINYINT",
        "SMALLINT",
        "INT",
        "INTEGER",
        "BIGINT",
        "DOUBLE",
        "FLOAT",
        "BOOLEAN",
        "TIMESTAMP",
        "TIMESTAMP_LTZ",
    ];
    if !KNOWN.contains(&name.as_str()) {
        return Err(SqlError::new(
            loc,
            format!("type {name} is not supported; supported types: {SUPPORTED_TYPES}"),
        ));
    }
    let mut scale = None;
    let precision = if p.consume_token(&Token::LParen) {
        let number = |p: &mut Parser| match &p.next_token().token {
            Token::Number(s, _) => s.parse::<u64>().ok(),
            _ => None,
        };
        let value = number(p);
        if p.consume_token(&Token::Comma) {
            scale =
                Some(number(p).ok_or_else(|| {
                    SqlError::new(loc, format!("{name}(p, s) needs a number for s"))
                })?);
        }
        pe(p.expect_token(&Token::RParen))?;
        Some(value.ok_or_else(|| SqlError::new(loc, format!("{name}(...) needs a number")))?)
    } else {
        None
    };
    let ty = match name.as_str() {
        "STRING" | "VARCHAR" | "CHAR" => SqlType::String,
        "TINYINT" => SqlType::TinyInt,
        "SMALLINT" => SqlType::SmallInt,
        "INT" | "INTEGER" => SqlType::Int,
        "BIGINT" => SqlType::BigInt,
        "DOUBLE" => {
            parse_word(p, "PRECISION");
            SqlType::Double
        }
        "FLOAT" | "REAL" => SqlType::Float,
        "BOOLEAN" => SqlType::Boolean,
        "TIMESTAMP" => {
            if p.parse_keywords(&[Keyword::WITH, Keyword::LOCAL, Keyword::TIME, Keyword::ZONE]) {
                SqlType::TimestampLtz
            } else {
                let _ = p.parse_keywords(&[Keyword::WITHOUT, Keyword::TIME, Keyword::ZONE]);
                SqlType::Timestamp
            }
        }
        "TIMESTAMP_LTZ" => SqlType::TimestampLtz,
        "DATE" => SqlType::Date,
        // DECIMAL is DECIMAL(10, 0), as in Flink.
        "DECIMAL" | "NUMERIC" | "DEC" => {
            let (p, s) = (precision.unwrap_or(10), scale.unwrap_or(0));
            if !(1..=38).contains(&p) || s > p {
                return Err(SqlError::new(
                    loc,
                    format!("{name}({p}, {s}): the precision is 1 to 38 and the scale at most the precision"),
                ));
            }
            return Ok(SqlType::Decimal(p as u8, s as u8));
        }
        _ => {
            return Err(SqlError::new(
                loc,
                format!("type {name} is not supported; supported types: {SUPPORTED_TYPES}"),
            ))
        }
    };
    if ty.is_time() && precision.is_some_and(|p| p > 3) {
        return Err(SqlError::new(
            loc,
            format!(
                "{name}({}) is not supported: lowwater keeps time in milliseconds, use precision 3",
                precision.unwrap_or(0)
            ),
        ));
    }
    Ok(ty)
}

/// The fields of a `ROW<name type, ...>` (or `ROW(name type, ...)`) column
/// whose path is `prefix`, after the word ROW: each leaf's path and type,
/// nested ROWs flattened.
fn row_fields(p: &mut Parser, prefix: &[String]) -> Result<Vec<(Vec<String>, SqlType)>> {
    let (open, close) = if p.consume_token(&Token::Lt) {
        (Token::Lt, Token::Gt)
    } else if p.consume_token(&Token::LParen) {
        (Token::LParen, Token::RParen)
    } else {
        return Err(SqlError::new(
            here(p),
            "ROW needs its fields: ROW<name type, ...>",
        ));
    };
    let _ = open;
    let mut out = Vec::new();
    loop {
        let name = pe(p.parse_identifier())?.value;
        let mut path = prefix.to_vec();
        path.push(name);
        if peek_word(p, "ROW") {
            p.next_token();
            out.extend(row_fields(p, &path)?);
        } else {
            out.push((path, data_type(p)?));
        }
        // `NOT NULL` and a comment on a field are accepted and ignored.
        let _ = p.parse_keywords(&[Keyword::NOT, Keyword::NULL]);
        if p.parse_keyword(Keyword::COMMENT) {
            p.next_token();
        }
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    pe(p.expect_token(&close))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::TvfKind;

    #[test]
    fn parses_a_seed_job() {
        let sql = "SET 'table.exec.source.idle-timeout' = '60 s';
            CREATE TABLE clicks (
              user_id STRING, epoch_ms BIGINT,
              ts AS TO_TIMESTAMP_LTZ(epoch_ms, 3),
              kts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
              WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
            ) WITH ('connector' = 'kafka', 'topic' = 'clickstream');
            INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) AS c
            FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
            WHERE user_id <> 'bot' GROUP BY window_start, window_end, user_id;";
        let stmts = parse_script(sql).expect("parses");
        assert_eq!(stmts.len(), 4);
        assert!(
            matches!(&stmts[3], Statement::FlinkNotes(n) if n.len() == 1 && n[0].1.contains("out")),
            "the table name out is noted: Flink reserves it"
        );
        let Statement::CreateTable(t) = &stmts[1] else {
            panic!("create")
        };
        assert_eq!(t.columns.len(), 4);
        assert!(matches!(t.columns[2].kind, ColumnKind::Computed(_)));
        assert!(
            matches!(&t.columns[3].kind, ColumnKind::Metadata { key, .. } if key == "timestamp")
        );
        assert_eq!(t.watermark.as_ref().map(|w| w.column.as_str()), Some("ts"));
        let Statement::Insert(i) = &stmts[2] else {
            panic!("insert")
        };
        assert_eq!(
            (i.tvf.kind, i.tvf.source.as_str(), i.tvf.args.len()),
            (TvfKind::Tumble, "clicks", 1)
        );
        assert_eq!(i.group_by.len(), 3);
        assert!(i.filter.is_some());
    }

    #[test]
    fn statement_sets_are_accepted() {
        let body = "CREATE TABLE t (a STRING) WITH ('connector' = 'blackhole');
            INSERT INTO t SELECT 1 FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(a), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;";
        for wrapped in [
            format!("EXECUTE STATEMENT SET BEGIN {body} END;"),
            format!("BEGIN STATEMENT SET; {body} END;"),
        ] {
            let stmts = parse_script(&wrapped).expect("parses");
            assert_eq!(stmts.len(), 2, "{wrapped}");
        }
    }

    #[test]
    fn errors_carry_line_and_column() {
        let e = parse_script("CREATE TABLE t (\n  a ARRAY<INT>\n)").expect_err("unsupported type");
        assert_eq!((e.loc.line, e.loc.column), (2, 5));
        assert!(e.message.contains("ARRAY") && e.message.contains("supported types"));
        let e = parse_script("CREATE TABLE t (a DECIMAL(39, 2))").expect_err("too precise");
        assert!(e.message.contains("1 to 38"), "{e}");
        let e = parse_script("SELECT 1").expect_err("not a job");
        assert!(e.message.contains("unsupported statement"));
        let e = parse_script("INSERT INTO s SELECT a FROM t GROUP BY a").expect_err("no tvf");
        assert!(e.message.contains("window table function"), "{e}");
    }
}
