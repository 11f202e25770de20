//! Parsing window semi and anti joins: a window table function's rows
//! filtered by a subquery over another's, correlated on both window
//! bounds, which Flink's `FlinkSubQueryRemoveRule` turns into a window
//! join of type SEMI (`IN`, `EXISTS`) or ANTI (`NOT IN`, `NOT EXISTS`):
//!
//! ```sql
//! FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '5' MINUTE))) L
//! WHERE L.num [NOT] IN (
//!     SELECT num FROM (SELECT * FROM TABLE(TUMBLE(TABLE r, ...))) R
//!     WHERE L.window_start = R.window_start AND L.window_end = R.window_end)
//! ```
//!
//! The subquery's WHERE becomes the join's ON (its unqualified names are
//! the subquery's side's first, as SQL scopes them), with `L.num = R.num`
//! for `IN`; for `NOT IN` Flink's null-aware `L.num = R.num OR L.num IS
//! NULL OR R.num IS NULL` (so a NULL on either side suppresses the left
//! row, and the join has no key). The predicate comes first in WHERE;
//! conditions ANDed after it filter the left rows written.

use sqlparser::ast::{BinaryOperator, Expr as AstExpr, Ident, SelectItem};
use sqlparser::dialect::{Dialect, GenericDialect, Precedence};
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;

use crate::ast::{From, IntervalJoin, JoinType, Select};
use crate::error::{Loc, Result, SqlError};
use crate::tokens::{alias, here, pe};
use crate::tvf::{window_call, window_side};

/// Whether the WHERE at the parser's position holds an `EXISTS` or an `IN
/// (SELECT ...)` (which sqlparser's expressions do not read).
pub(crate) fn ahead(p: &Parser) -> bool {
    if !p.peek_keyword(Keyword::WHERE) {
        return false;
    }
    let word = |n: usize, k: Keyword| matches!(&p.peek_nth_token(n).token, Token::Word(w) if w.keyword == k);
    let mut depth = 0usize;
    for n in 1.. {
        match p.peek_nth_token(n).token {
            Token::EOF => return false,
            Token::SemiColon if depth == 0 => return false,
            Token::LParen => depth += 1,
            Token::RParen if depth == 0 => return false,
            Token::RParen => depth -= 1,
            _ if word(n, Keyword::EXISTS) => return true,
            _ if word(n, Keyword::IN)
                && p.peek_nth_token(n + 1).token == Token::LParen
                && word(n + 2, Keyword::SELECT) =>
            {
                return true
            }
            _ => {}
        }
    }
    false
}

fn or(a: AstExpr, b: AstExpr) -> AstExpr {
    AstExpr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::Or,
        right: Box::new(b),
    }
}

/// `WHERE pred [AND rest]` after the window side `first` (named `alias`,
/// at `loc`): the semi or anti join, and `rest`. The subquery's side, when
/// it is a subquery in parentheses, is read with `select` (the query
/// parser's, which calls this one: it is passed in, so that this module
/// stays below the query parser).
pub(crate) fn semi_join(
    p: &mut Parser,
    first: Select,
    first_alias: Option<String>,
    loc: Loc,
    select: fn(&mut Parser) -> Result<Select>,
) -> Result<(Box<IntervalJoin>, Option<AstExpr>)> {
    let (left, left_side) = window_side(first, first_alias, loc)?;
    pe(p.expect_keyword(Keyword::WHERE))?;
    let at = here(p);
    let first_please = || {
        SqlError::new(
            at,
            "write the IN or EXISTS subquery first in WHERE (WHERE l.k IN (SELECT ...) AND \
             ...): lowwater reads it as a window semi or anti join there only",
        )
    };
    let (kind, probe) = if p.parse_keywords(&[Keyword::NOT, Keyword::EXISTS]) {
        (JoinType::Anti, None)
    } else if p.parse_keyword(Keyword::EXISTS) {
        (JoinType::Semi, None)
    } else {
        // The expression before IN: sqlparser's IN binds at BETWEEN's level.
        let before_in = GenericDialect {}.prec_value(Precedence::Between);
        let e = pe(p.parse_subexpr(before_in)).map_err(|_| first_please())?;
        let negated = p.parse_keyword(Keyword::NOT);
        if !p.parse_keyword(Keyword::IN) {
            return Err(first_please());
        }
        (
            if negated {
                JoinType::Anti
            } else {
                JoinType::Semi
            },
            Some(e),
        )
    };
    pe(p.expect_token(&Token::LParen))?;
    let sub = here(p);
    pe(p.expect_keyword(Keyword::SELECT))?;
    let items = pe(p.parse_comma_separated(|p| p.parse_select_item()))?;
    pe(p.expect_keyword(Keyword::FROM))?;
    let side_loc = here(p);
    let inner = if p.consume_token(&Token::LParen) {
        let s = select(p)?;
        pe(p.expect_token(&Token::RParen))?;
        s
    } else if p.peek_keyword(Keyword::TABLE) {
        Select {
            loc: side_loc,
            items: vec![SelectItem::Wildcard(
                sqlparser::ast::WildcardAdditionalOptions::default(),
            )],
            from: From::Window(window_call(p)?),
            filter: None,
            group_by: None,
            having: None,
        }
    } else {
        return Err(SqlError::new(
            side_loc,
            "the subquery of a window semi or anti join reads a window table function's rows: \
             FROM (SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL ...))) r",
        ));
    };
    let right_alias = alias(p)?;
    let (right, right_side) = window_side(inner, right_alias, side_loc)?;
    let rq = right.qualifier().to_string();
    let cond = match p.parse_keyword(Keyword::WHERE) {
        true => Some(pe(p.parse_expr())?),
        false => None,
    };
    pe(p.expect_token(&Token::RParen))?;
    let Some(cond) = cond else {
        return Err(SqlError::new(
            sub,
            format!(
                "the subquery needs WHERE {}.window_start = {rq}.window_start AND \
                 {}.window_end = {rq}.window_end: Flink joins windows only on both bounds",
                left.qualifier(),
                left.qualifier()
            ),
        ));
    };
    let on = match probe {
        None => cond,
        Some(mut e) => {
            // The operand of IN is the outer query's: its bare names are the
            // left side's, whatever the subquery's side has.
            let lq = left.qualifier().to_string();
            let _ = sqlparser::ast::visit_expressions_mut(&mut e, |x| {
                if let AstExpr::Identifier(id) = x {
                    *x = AstExpr::CompoundIdentifier(vec![Ident::new(&lq), id.clone()]);
                }
                std::ops::ControlFlow::<()>::Continue(())
            });
            let col = match items.as_slice() {
                [SelectItem::UnnamedExpr(c)] | [SelectItem::ExprWithAlias { expr: c, .. }] => {
                    match c {
                        // The subquery's own column, whatever the outer
                        // side has.
                        AstExpr::Identifier(id) => {
                            AstExpr::CompoundIdentifier(vec![Ident::new(&rq), id.clone()])
                        }
                        other => other.clone(),
                    }
                }
                _ => return Err(SqlError::new(sub, "the subquery of IN selects one column")),
            };
            let eq = AstExpr::BinaryOp {
                left: Box::new(e.clone()),
                op: BinaryOperator::Eq,
                right: Box::new(col.clone()),
            };
            let term = match kind {
                JoinType::Anti => or(
                    or(eq, AstExpr::IsNull(Box::new(e))),
                    AstExpr::IsNull(Box::new(col)),
                ),
                _ => eq,
            };
            AstExpr::BinaryOp {
                left: Box::new(cond),
                op: BinaryOperator::And,
                right: Box::new(term),
            }
        }
    };
    // Conditions ANDed after it; an OR would take the predicate into its
    // left operand, which a semi join cannot be.
    let and_level = GenericDialect {}.prec_value(Precedence::And);
    let mut rest: Option<AstExpr> = None;
    while p.parse_keyword(Keyword::AND) {
        let c = pe(p.parse_subexpr(and_level))?;
        rest = crate::inline::and(rest, Some(c));
    }
    if p.peek_keyword(Keyword::OR) {
        return Err(SqlError::new(
            here(p),
            "an OR after a window semi or anti join's IN or EXISTS: the subquery must hold for \
             every row written; put the OR in parentheses (WHERE l.k IN (SELECT ...) AND (a OR \
             b))",
        ));
    }
    Ok((
        Box::new(IntervalJoin {
            left,
            right,
            kind,
            loc: at,
            on,
            windows: Some(Box::new([left_side, right_side])),
        }),
        rest,
    ))
}
