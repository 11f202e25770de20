//! What Flink would refuse in a job lowwater runs: names that are reserved
//! words in Flink SQL unless quoted with backticks (`value`, `timestamp`,
//! `user`, `out`, ...), intervals beyond the default two-digit leading
//! precision (`INTERVAL '120' SECOND`), and MILLISECOND intervals. lowwater
//! runs them, and warns (`explain`, and at the start of `run` and `replay`),
//! so that a job written here still runs on Flink.

use std::ops::ControlFlow;

use sqlparser::ast::{visit_expressions, DateTimeField, Expr as AstExpr, Ident, SelectItem};

use crate::error::Loc;
use crate::parse::{expr_loc, Statement};

/// Words Flink 2.3 refuses as unquoted names (measured: each as a column
/// name in `CREATE TABLE`).
const RESERVED: &[&str] = &[
    "all",
    "any",
    "as",
    "at",
    "avg",
    "between",
    "by",
    "case",
    "cast",
    "check",
    "column",
    "comment",
    "condition",
    "count",
    "current",
    "date",
    "day",
    "element",
    "end",
    "every",
    "false",
    "filter",
    "from",
    "function",
    "global",
    "group",
    "hold",
    "hour",
    "in",
    "interval",
    "lag",
    "language",
    "lead",
    "left",
    "local",
    "lower",
    "match",
    "max",
    "member",
    "merge",
    "method",
    "min",
    "minute",
    "module",
    "month",
    "new",
    "none",
    "nullif",
    "of",
    "offset",
    "only",
    "open",
    "order",
    "out",
    "over",
    "parameter",
    "partition",
    "percent",
    "period",
    "position",
    "power",
    "range",
    "rank",
    "reads",
    "real",
    "ref",
    "release",
    "result",
    "return",
    "returns",
    "right",
    "row",
    "rows",
    "scope",
    "search",
    "second",
    "select",
    "skip",
    "some",
    "specific",
    "sql",
    "start",
    "static",
    "stream",
    "sum",
    "system",
    "system_time",
    "table",
    "then",
    "time",
    "timestamp",
    "to",
    "trigger",
    "true",
    "uescape",
    "unique",
    "unknown",
    "upper",
    "user",
    "value",
    "values",
    "when",
    "where",
    "window",
    "with",
    "within",
    "without",
    "year",
];

/// Notes on what Flink would refuse: (where, what and what to write).
pub type Notes = Vec<(Loc, String)>;

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

/// Everything in a parsed statement's expressions and select list.
pub fn statement(st: &Statement, notes: &mut Notes) {
    match st {
        Statement::Insert(ins) => {
            for item in &ins.items {
                match item {
                    SelectItem::UnnamedExpr(e) => expr(e, ins.loc, notes),
                    SelectItem::ExprWithAlias { expr: e, alias } => {
                        expr(e, ins.loc, notes);
                        ident(alias, "the alias", ins.loc, notes);
                    }
                    _ => {}
                }
            }
            for e in ins
                .filter
                .iter()
                .chain(&ins.group_by)
                .chain(&ins.having)
                .chain(&ins.tvf.args)
            {
                expr(e, ins.loc, notes);
            }
        }
        Statement::CreateTable(ct) => {
            if let Some(w) = &ct.watermark {
                expr(&w.expr, w.loc, notes);
            }
            for c in &ct.columns {
                if let crate::parse::ColumnKind::Computed(e) = &c.kind {
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
