//! What Flink would refuse in a job lowwater runs: names that are reserved
//! words in Flink SQL unless quoted with backticks (`value`, `timestamp`,
//! `user`, `out`, ...), intervals beyond the default two-digit leading
//! precision (`INTERVAL '120' SECOND`), and MILLISECOND intervals. lowwater
//! runs them, and warns (`explain`, and at the start of `run` and `replay`),
//! so that a job written here still runs on Flink.

use std::ops::ControlFlow;

use sqlparser::ast::{visit_expressions, DateTimeField, Expr as AstExpr, Ident, SelectItem};

use crate::ast::{expr_loc, Notes, Statement};
use crate::error::Loc;

/// Words Flink 2.3 refuses as unquoted names (measured: each of
/// sqlparser's keywords as a column name in `CREATE TABLE`, on Flink 2.3).
const RESERVED: &[&str] = &[
    "abs",
    "all",
    "allocate",
    "alter",
    "and",
    "any",
    "are",
    "array",
    "array_max_cardinality",
    "as",
    "asensitive",
    "asymmetric",
    "at",
    "atomic",
    "authorization",
    "avg",
    "begin",
    "begin_frame",
    "begin_partition",
    "between",
    "bigint",
    "binary",
    "bit",
    "blob",
    "boolean",
    "both",
    "buckets",
    "by",
    "bytes",
    "call",
    "called",
    "cardinality",
    "cascaded",
    "case",
    "cast",
    "catalogs",
    "ceil",
    "ceiling",
    "char",
    "char_length",
    "character",
    "character_length",
    "check",
    "clob",
    "close",
    "coalesce",
    "collate",
    "collect",
    "column",
    "comment",
    "commit",
    "condition",
    "connect",
    "constraint",
    "contains",
    "convert",
    "corr",
    "corresponding",
    "count",
    "covar_pop",
    "covar_samp",
    "create",
    "cross",
    "cube",
    "cume_dist",
    "current",
    "current_catalog",
    "current_date",
    "current_default_transform_group",
    "current_path",
    "current_role",
    "current_row",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_transform_group_for_type",
    "current_user",
    "cursor",
    "cycle",
    "databases",
    "date",
    "datetime",
    "day",
    "deallocate",
    "dec",
    "decimal",
    "declare",
    "default",
    "define",
    "delete",
    "dense_rank",
    "deref",
    "describe",
    "deterministic",
    "disconnect",
    "distinct",
    "double",
    "drop",
    "dynamic",
    "each",
    "element",
    "else",
    "empty",
    "end",
    "end_frame",
    "end_partition",
    "equals",
    "escape",
    "every",
    "except",
    "exec",
    "execute",
    "exists",
    "exp",
    "explain",
    "extend",
    "extended",
    "external",
    "extract",
    "false",
    "fetch",
    "filter",
    "first_value",
    "float",
    "floor",
    "for",
    "foreign",
    "frame_row",
    "free",
    "from",
    "full",
    "function",
    "functions",
    "fusion",
    "get",
    "global",
    "grant",
    "group",
    "grouping",
    "groups",
    "hash",
    "having",
    "hold",
    "hour",
    "identity",
    "ilike",
    "import",
    "in",
    "include",
    "indicator",
    "inner",
    "inout",
    "insensitive",
    "insert",
    "int",
    "integer",
    "intersect",
    "intersection",
    "interval",
    "into",
    "is",
    "join",
    "lag",
    "language",
    "large",
    "last_value",
    "lateral",
    "lead",
    "leading",
    "left",
    "like",
    "like_regex",
    "limit",
    "ln",
    "local",
    "localtime",
    "localtimestamp",
    "lower",
    "match",
    "match_recognize",
    "matches",
    "materialized",
    "max",
    "measures",
    "member",
    "merge",
    "method",
    "min",
    "minus",
    "minute",
    "mod",
    "modifies",
    "modify",
    "module",
    "month",
    "multiset",
    "national",
    "natural",
    "nchar",
    "nclob",
    "new",
    "next",
    "no",
    "none",
    "normalize",
    "not",
    "nth_value",
    "ntile",
    "null",
    "nullif",
    "numeric",
    "occurrences_regex",
    "octet_length",
    "of",
    "offset",
    "old",
    "omit",
    "on",
    "one",
    "only",
    "open",
    "or",
    "order",
    "out",
    "outer",
    "over",
    "overlaps",
    "overlay",
    "parameter",
    "partition",
    "pattern",
    "per",
    "percent",
    "percent_rank",
    "percentile_cont",
    "percentile_disc",
    "period",
    "pivot",
    "portion",
    "position",
    "position_regex",
    "power",
    "precedes",
    "precision",
    "prepare",
    "primary",
    "procedure",
    "procedures",
    "qualify",
    "range",
    "rank",
    "raw",
    "reads",
    "real",
    "recursive",
    "ref",
    "references",
    "referencing",
    "refresh",
    "refresh_mode",
    "regr_avgx",
    "regr_avgy",
    "regr_count",
    "regr_intercept",
    "regr_r2",
    "regr_slope",
    "regr_sxx",
    "regr_sxy",
    "regr_syy",
    "release",
    "rename",
    "reset",
    "result",
    "resume",
    "return",
    "returns",
    "revoke",
    "right",
    "rlike",
    "rollback",
    "rollup",
    "row",
    "row_number",
    "rows",
    "safe_cast",
    "savepoint",
    "scope",
    "scroll",
    "search",
    "second",
    "select",
    "sensitive",
    "separator",
    "session_user",
    "set",
    "show",
    "similar",
    "skip",
    "smallint",
    "some",
    "specific",
    "specifictype",
    "sql",
    "sqlexception",
    "sqlstate",
    "sqlwarning",
    "sqrt",
    "start",
    "statement",
    "static",
    "stddev_pop",
    "stddev_samp",
    "stream",
    "string",
    "submultiset",
    "substring",
    "substring_regex",
    "succeeds",
    "sum",
    "suspend",
    "symmetric",
    "system",
    "system_time",
    "system_user",
    "table",
    "tables",
    "tablesample",
    "then",
    "time",
    "timestamp",
    "timezone_hour",
    "timezone_minute",
    "tinyint",
    "to",
    "trailing",
    "translate",
    "translate_regex",
    "translation",
    "treat",
    "trigger",
    "trim",
    "trim_array",
    "true",
    "truncate",
    "try_cast",
    "uescape",
    "union",
    "unique",
    "unknown",
    "unnest",
    "unpivot",
    "update",
    "upper",
    "use",
    "user",
    "using",
    "value",
    "value_of",
    "values",
    "var_pop",
    "var_samp",
    "varbinary",
    "varchar",
    "varying",
    "versioning",
    "views",
    "weeks",
    "when",
    "whenever",
    "where",
    "width_bucket",
    "window",
    "with",
    "within",
    "without",
    "year",
];

/// A name Flink would refuse unquoted.
pub fn ident(id: &Ident, what: &str, fallback: Loc, notes: &mut Notes) {
    if id.quote_style.is_none() && RESERVED.contains(&id.value.to_ascii_lowercase().as_str()) {
        let at = if id.span.start.line == 0 {
            fallback
        } else {
            Loc::from_sp(id.span.start)
        };
        notes.push((
            at,
            format!(
                "{what} {} is a reserved word in Flink SQL: Flink refuses it unless it is \
                 quoted, `{}`",
                id.value, id.value
            ),
        ));
    }
}

fn digits_before_point(text: &str) -> usize {
    let t = text.trim().trim_start_matches(['-', '+']);
    t.split('.')
        .next()
        .map_or(0, |i| i.trim_start_matches('0').len())
}

/// Names and intervals in `e`.
pub fn expr(e: &AstExpr, fallback: Loc, notes: &mut Notes) {
    let _ = visit_expressions(e, |x: &AstExpr| {
        match x {
            AstExpr::Identifier(id) => ident(id, "the name", fallback, notes),
            AstExpr::CompoundIdentifier(ids) => {
                for id in ids {
                    ident(id, "the name", fallback, notes);
                }
            }
            AstExpr::Interval(i) => {
                let at = expr_loc(x, fallback);
                let text = match i.value.as_ref() {
                    AstExpr::Value(v) => v.value.clone().into_string().unwrap_or_default(),
                    _ => String::new(),
                };
                let precise =
                    i.leading_precision.is_some() || i.fractional_seconds_precision.is_some();
                if matches!(
                    i.leading_field,
                    Some(DateTimeField::Millisecond | DateTimeField::Milliseconds)
                ) {
                    notes.push((
                        at,
                        format!(
                            "{x}: Flink has no MILLISECOND intervals; write seconds with a \
                             fraction, INTERVAL '0.5' SECOND"
                        ),
                    ));
                } else if !precise && digits_before_point(&text) > 2 {
                    notes.push((
                        at,
                        format!(
                            "{x}: Flink refuses more than two digits before the point without \
                             a precision; write a larger unit or a precision, e.g. INTERVAL \
                             '{text}' {}(3)",
                            i.leading_field
                                .as_ref()
                                .map_or("SECOND".to_string(), |f| f.to_string())
                        ),
                    ));
                }
            }
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
}

/// Everything in a select list.
fn items(list: &[SelectItem], loc: Loc, notes: &mut Notes) {
    for item in list {
        match item {
            SelectItem::UnnamedExpr(e) => expr(e, loc, notes),
            SelectItem::ExprWithAlias { expr: e, alias } => {
                expr(e, loc, notes);
                ident(alias, "the alias", loc, notes);
            }
            _ => {}
        }
    }
}

/// Everything in an interval join's select list, ON and WHERE.
fn interval(ins: &crate::ast::IntervalInsert, notes: &mut Notes) {
    items(&ins.items, ins.loc, notes);
    for e in ins.filter.iter().chain([&ins.join.on]) {
        expr(e, ins.join.loc, notes);
    }
}

/// Everything in a temporal join's select list, ON, AS OF and WHERE.
fn join(ins: &crate::ast::JoinInsert, notes: &mut Notes) {
    items(&ins.items, ins.loc, notes);
    let j = &ins.join;
    for e in ins.filter.iter().chain([&j.on, &j.as_of]) {
        expr(e, j.loc, notes);
    }
}

/// Everything in a parsed statement's expressions and select list.
pub fn statement(st: &Statement, notes: &mut Notes) {
    match st {
        Statement::Insert(ins) => {
            items(&ins.items, ins.loc, notes);
            for e in ins
                .filter
                .iter()
                .chain(&ins.group_by)
                .chain(&ins.having)
                .chain(&ins.qualify)
                .chain(&ins.tvf.args)
            {
                expr(e, ins.loc, notes);
            }
            match ins.join.as_deref() {
                Some(crate::ast::ViewJoin::Temporal(j)) => join(j, notes),
                Some(crate::ast::ViewJoin::Interval(j)) => interval(j, notes),
                None => {}
            }
        }
        Statement::JoinInsert(ins) => join(ins, notes),
        Statement::IntervalInsert(ins) => interval(ins, notes),
        Statement::CreateTable(ct) => {
            if let Some(w) = &ct.watermark {
                expr(&w.expr, w.loc, notes);
            }
            for c in &ct.columns {
                if let crate::ast::ColumnKind::Computed(e) = &c.kind {
                    expr(e, c.loc, notes);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_names_and_long_intervals_are_noted() {
        let mut notes = Notes::new();
        ident(&Ident::new("Value"), "column", Loc::default(), &mut notes);
        ident(
            &Ident::with_quote('`', "value"),
            "column",
            Loc::default(),
            &mut notes,
        );
        ident(&Ident::new("amount"), "column", Loc::default(), &mut notes);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].1.contains("`Value`"), "{:?}", notes);
        let parse = |s: &str| {
            sqlparser::parser::Parser::new(&sqlparser::dialect::GenericDialect {})
                .try_with_sql(s)
                .and_then(|mut p| p.parse_expr())
                .expect("expression")
        };
        let mut notes = Notes::new();
        for ok in [
            "INTERVAL '99' SECOND",
            "INTERVAL '0.5' SECOND",
            "INTERVAL '120' SECOND(3)",
        ] {
            expr(&parse(ok), Loc::default(), &mut notes);
        }
        assert!(notes.is_empty(), "{notes:?}");
        expr(&parse("INTERVAL '120' SECOND"), Loc::default(), &mut notes);
        expr(
            &parse("INTERVAL '500' MILLISECOND"),
            Loc::default(),
            &mut notes,
        );
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[1].1.contains("no MILLISECOND"));
    }
}
