//! Parsing queries: `SELECT ... FROM ... [WHERE] [GROUP BY] [HAVING]`, where
//! FROM is a window table function (read by [`crate::tvf`]), a table or
//! view, or a subquery in parentheses; `CREATE VIEW`; and
//! `INSERT INTO`. Views and subqueries are inlined by [`crate::inline`], so
//! the planner sees one window aggregation per INSERT.

use sqlparser::ast::{Expr as AstExpr, SelectItem};
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;

use crate::ast::{
    deep_error, deep_loc, dismantle, too_deep, From, Insert, IntervalJoin, JoinType, Named, Notes,
    Select, Statement, TemporalJoin,
};
use crate::error::{Loc, Result, SqlError};
use crate::inline::{self, View, Views};
use crate::tokens::{alias, here, pe};
use crate::tvf::{window_side, window_tvf};

const JOIN_KEYWORDS: [Keyword; 6] = [
    Keyword::JOIN,
    Keyword::INNER,
    Keyword::LEFT,
    Keyword::RIGHT,
    Keyword::FULL,
    Keyword::CROSS,
];

fn no_join(p: &Parser, at: Loc) -> Result<()> {
    let join = JOIN_KEYWORDS.iter().any(|k| p.peek_keyword(*k));
    if join || p.peek_token().token == Token::Comma {
        return Err(SqlError::new(
            at,
            "a join's sides must be tables or views by name: FROM must be a window table \
             function, TABLE(TUMBLE|HOP|CUMULATE|SESSION(TABLE src, DESCRIPTOR(time_col), ...)), \
             one table or view (joined, for an event-time temporal join, as FROM t [LEFT] JOIN \
             v FOR SYSTEM_TIME AS OF t.ts AS r ON ...), or a subquery over one of them",
        ));
    }
    Ok(())
}

/// `ON condition` of a join at `loc`, the last join of its query.
fn on_clause(p: &mut Parser, loc: Loc) -> Result<AstExpr> {
    pe(p.expect_keyword(Keyword::ON))?;
    let on = pe(p.parse_expr())?;
    if too_deep(&on) {
        let at = deep_loc(&on, loc);
        return Err(deep_error(at, vec![on]));
    }
    if JOIN_KEYWORDS.iter().any(|k| p.peek_keyword(*k)) || p.peek_token().token == Token::Comma {
        return Err(SqlError::new(
            here(p),
            "one join per query: join the result of this one in a view, or write another \
             INSERT",
        ));
    }
    Ok(on)
}

/// `[INNER | LEFT | RIGHT | FULL [OUTER]]`, before JOIN.
fn join_type(p: &mut Parser) -> JoinType {
    let kind = if p.parse_keyword(Keyword::LEFT) {
        JoinType::Left
    } else if p.parse_keyword(Keyword::RIGHT) {
        JoinType::Right
    } else if p.parse_keyword(Keyword::FULL) {
        JoinType::Full
    } else {
        let _ = p.parse_keyword(Keyword::INNER);
        JoinType::Inner
    };
    if kind != JoinType::Inner {
        let _ = p.parse_keyword(Keyword::OUTER);
    }
    kind
}

/// After a window table function's subquery `first` (named `alias`, at
/// `loc`): `[INNER | LEFT | RIGHT | FULL] JOIN (SELECT ... FROM
/// TABLE(...)) alias ON ...`, a window join.
fn window_join(
    p: &mut Parser,
    first: Select,
    first_alias: Option<String>,
    loc: Loc,
) -> Result<Box<IntervalJoin>> {
    let (left, left_side) = window_side(first, first_alias, loc)?;
    let at = here(p);
    let kind = join_type(p);
    pe(p.expect_keyword(Keyword::JOIN))?;
    let right_loc = here(p);
    if !p.consume_token(&Token::LParen) {
        return Err(SqlError::new(
            right_loc,
            "a window join's right side is a window table function's rows too: JOIN (SELECT * \
             FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL ...))) AS r ON l.window_start \
             = r.window_start AND l.window_end = r.window_end AND ...",
        ));
    }
    let inner = select(p)?;
    pe(p.expect_token(&Token::RParen))?;
    let right_alias = alias(p)?;
    let (right, right_side) = window_side(inner, right_alias, right_loc)?;
    let on = on_clause(p, loc)?;
    Ok(Box::new(IntervalJoin {
        left,
        right,
        kind,
        loc: at,
        on,
        windows: Some(Box::new([left_side, right_side])),
    }))
}

/// A join after the first FROM table.
enum Joined {
    Temporal(Box<TemporalJoin>),
    Interval(Box<IntervalJoin>),
}

/// After the first FROM table: `[INNER | LEFT | RIGHT | FULL [OUTER]] JOIN
/// b [FOR SYSTEM_TIME AS OF expr] [[AS] alias] ON condition`, or `None`
/// when no join follows.
fn join(p: &mut Parser, probe: &Named) -> Result<Option<Joined>> {
    let loc = here(p);
    if p.consume_token(&Token::Comma) || p.parse_keyword(Keyword::CROSS) {
        return Err(SqlError::new(
            loc,
            "a comma or CROSS JOIN is a regular join, which lowwater does not run: its state \
             grows without bound on streams. Join on event time: FROM t [LEFT] JOIN v FOR \
             SYSTEM_TIME AS OF t.ts AS r ON t.k = r.k, or an interval join: FROM a JOIN b ON \
             a.k = b.k AND b.ts BETWEEN a.ts - INTERVAL '1' MINUTE AND a.ts",
        ));
    }
    let kind = join_type(p);
    if kind == JoinType::Inner && !p.peek_keyword(Keyword::JOIN) && loc == here(p) {
        return Ok(None);
    }
    pe(p.expect_keyword(Keyword::JOIN))?;
    let at = here(p);
    if p.peek_token().token == Token::LParen || p.peek_keyword(Keyword::TABLE) {
        return Err(SqlError::new(
            at,
            "a join's right side must be a table or view by name (a temporal join's: a table \
             with a PRIMARY KEY or a deduplicated view)",
        ));
    }
    let name = pe(p.parse_identifier())?.value;
    let temporal =
        p.parse_keywords(&[Keyword::FOR, Keyword::SYSTEM_TIME, Keyword::AS, Keyword::OF]);
    if temporal && matches!(kind, JoinType::Right | JoinType::Full) {
        return Err(SqlError::new(
            loc,
            "an event-time temporal join is INNER or LEFT (Flink fails on RIGHT and FULL: \
             'Unknown join type'); put the versioned table on the right of a LEFT JOIN",
        ));
    }
    let as_of = match temporal {
        true => Some(pe(p.parse_expr())?),
        false => None,
    };
    let alias = alias(p)?;
    let on = on_clause(p, loc)?;
    let build = Named {
        name,
        loc: at,
        alias,
    };
    Ok(Some(match as_of {
        Some(as_of) => Joined::Temporal(Box::new(TemporalJoin {
            probe: probe.clone(),
            build,
            left: kind == JoinType::Left,
            loc,
            as_of,
            on,
        })),
        None => Joined::Interval(Box::new(IntervalJoin {
            left: probe.clone(),
            right: build,
            kind,
            loc,
            on,
            windows: None,
        })),
    }))
}

/// `SELECT ...` up to the end of its clauses.
pub(crate) fn select(p: &mut Parser) -> Result<Select> {
    let loc = here(p);
    pe(p.expect_keyword(Keyword::SELECT))?;
    if p.peek_keyword(Keyword::DISTINCT) {
        return Err(SqlError::new(here(p), "SELECT DISTINCT is not supported"));
    }
    let items = pe(p.parse_comma_separated(|p| p.parse_select_item()))?;
    pe(p.expect_keyword(Keyword::FROM))?;
    let from_loc = here(p);
    // A window semi or anti join's WHERE, read with it: what follows its
    // subquery.
    let mut semi_rest = None;
    let from = if p.consume_token(&Token::LParen) {
        let inner = select(p)?;
        pe(p.expect_token(&Token::RParen))?;
        let name = alias(p)?;
        let joined = JOIN_KEYWORDS[..5].iter().any(|k| p.peek_keyword(*k));
        let windowed = matches!(inner.from, From::Window(_));
        if joined && windowed {
            From::IntervalJoin(window_join(p, inner, name, from_loc)?)
        } else if windowed && crate::semi::ahead(p) {
            let (j, rest) = crate::semi::semi_join(p, inner, name, from_loc, select)?;
            semi_rest = Some(rest);
            From::IntervalJoin(j)
        } else {
            From::Query(Box::new(inner))
        }
    } else if p.peek_keyword(Keyword::TABLE) {
        From::Window(window_tvf(p)?)
    } else if matches!(p.peek_token().token, Token::Word(_)) {
        let name = pe(p.parse_identifier())?.value;
        let probe = Named {
            name,
            loc: from_loc,
            alias: alias(p)?,
        };
        match join(p, &probe)? {
            Some(Joined::Temporal(j)) => From::TemporalJoin(j),
            Some(Joined::Interval(j)) => From::IntervalJoin(j),
            None => From::Table {
                name: probe.name,
                loc: from_loc,
            },
        }
    } else {
        return Err(SqlError::new(
            from_loc,
            format!(
                "FROM must be a window table function, a table or view, or a subquery; found {}",
                p.peek_token().token
            ),
        ));
    };
    no_join(p, from_loc)?;
    let filter = if let Some(rest) = semi_rest {
        rest
    } else if p.parse_keyword(Keyword::WHERE) {
        Some(pe(p.parse_expr())?)
    } else {
        None
    };
    let group_loc = here(p);
    let group_by = if p.parse_keywords(&[Keyword::GROUP, Keyword::BY]) {
        Some((pe(p.parse_comma_separated(|p| p.parse_expr()))?, group_loc))
    } else {
        None
    };
    let having = if p.parse_keyword(Keyword::HAVING) {
        Some(pe(p.parse_expr())?)
    } else {
        None
    };
    for kw in [
        Keyword::ORDER,
        Keyword::LIMIT,
        Keyword::UNION,
        Keyword::WINDOW,
    ] {
        if p.peek_keyword(kw) {
            return Err(SqlError::new(
                here(p),
                format!("{kw:?} is not supported in lowwater's SQL subset"),
            ));
        }
    }
    let item_expr = |i: &SelectItem| match i {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e.clone()),
        _ => None,
    };
    let deep = items
        .iter()
        .filter_map(|i| match i {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
            _ => None,
        })
        .chain(filter.iter())
        .chain(group_by.iter().flat_map(|g| g.0.iter()))
        .chain(having.iter())
        .find(|e| too_deep(e))
        .map(|e| deep_loc(e, loc));
    if let Some(at) = deep {
        let mut all: Vec<AstExpr> = items.iter().filter_map(item_expr).collect();
        all.extend(filter);
        all.extend(group_by.into_iter().flat_map(|g| g.0));
        all.extend(having);
        // The select items' own copies go the same way.
        for i in items {
            if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = i {
                dismantle(e);
            }
        }
        return Err(deep_error(at, all));
    }
    Ok(Select {
        loc,
        items,
        from,
        filter,
        group_by,
        having,
    })
}

/// `[TEMPORARY] VIEW [IF NOT EXISTS] name [(cols)] AS SELECT ...` (after
/// CREATE): remembered in `views` for the statements that follow.
pub(crate) fn create_view(p: &mut Parser, views: &mut Views, notes: &mut Notes) -> Result<()> {
    let if_not_exists = p.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let loc = here(p);
    let id = pe(p.parse_identifier())?;
    crate::portability::ident(&id, "the view name", loc, notes);
    let name = id.value;
    let columns = if p.consume_token(&Token::LParen) {
        let cols = pe(p.parse_comma_separated(|p| p.parse_identifier()))?;
        pe(p.expect_token(&Token::RParen))?;
        Some(cols.into_iter().map(|c| c.value).collect())
    } else {
        None
    };
    pe(p.expect_keyword(Keyword::AS))?;
    let select = select(p)?;
    let key = name.to_ascii_lowercase();
    if views.contains_key(&key) {
        if if_not_exists {
            return Ok(());
        }
        return Err(SqlError::new(
            loc,
            format!("view '{name}' is defined twice in this job"),
        ));
    }
    views.insert(
        key,
        View {
            name,
            loc,
            columns,
            select,
        },
    );
    Ok(())
}

/// `INTO sink [(cols)] SELECT ...` (after INSERT), with views and
/// subqueries inlined.
pub(crate) fn insert(
    p: &mut Parser,
    loc: Loc,
    views: &Views,
    notes: &mut Notes,
) -> Result<Statement> {
    if !p.parse_keyword(Keyword::INTO) {
        return Err(SqlError::new(
            here(p),
            "only INSERT INTO is supported (no INSERT OVERWRITE)",
        ));
    }
    let at = here(p);
    let id = pe(p.parse_identifier())?;
    crate::portability::ident(&id, "the table name", at, notes);
    let sink = id.value;
    let sink_columns = if p.consume_token(&Token::LParen) {
        let cols = pe(p.parse_comma_separated(|p| p.parse_identifier()))?;
        pe(p.expect_token(&Token::RParen))?;
        Some(cols.into_iter().map(|c| c.value).collect())
    } else {
        None
    };
    let query = select(p)?;
    if matches!(query.from, From::IntervalJoin(_)) {
        let j = crate::join::interval_insert(query, views, sink, loc, sink_columns)?;
        return Ok(Statement::IntervalInsert(Box::new(j)));
    }
    if matches!(query.from, From::TemporalJoin(_)) {
        let j = crate::join::join_insert(query, views, sink, loc, sink_columns)?;
        return Ok(Statement::JoinInsert(Box::new(j)));
    }
    let body = inline::aggregation(query, views, loc)?;
    Ok(Statement::Insert(Box::new(insert_of(
        body,
        sink,
        loc,
        sink_columns,
    ))))
}

/// Flink 2.3's `ON CONFLICT DO NOTHING | DO ERROR | DO DEDUPLICATE` after
/// an INSERT's query (starting at `insert`), if there is one.
pub(crate) fn on_conflict(p: &mut Parser, insert: Loc) -> Result<Option<Statement>> {
    let loc = here(p);
    if !p.parse_keywords(&[Keyword::ON, Keyword::CONFLICT]) {
        return Ok(None);
    }
    let usage = "Flink's ON CONFLICT is one of ON CONFLICT DO NOTHING, ON CONFLICT DO ERROR, ON \
                 CONFLICT DO DEDUPLICATE (no column list: the conflict is on the sink's PRIMARY \
                 KEY)";
    if !p.parse_keyword(Keyword::DO) {
        return Err(SqlError::new(here(p), usage));
    }
    let t = p.next_token();
    let word = match &t.token {
        Token::Word(w) => w.value.to_ascii_uppercase(),
        _ => String::new(),
    };
    let strategy = match word.as_str() {
        "NOTHING" => crate::ast::Conflict::Nothing,
        "ERROR" => crate::ast::Conflict::Error,
        "DEDUPLICATE" => crate::ast::Conflict::Deduplicate,
        _ => return Err(SqlError::new(Loc::from_sp(t.span.start), usage)),
    };
    Ok(Some(Statement::OnConflict {
        insert,
        strategy,
        loc,
    }))
}

/// The INSERT of an aggregation (an inner one of cascading windows has no
/// sink: its rows feed the window function over it).
fn insert_of(
    body: inline::Aggregation,
    sink: String,
    loc: Loc,
    sink_columns: Option<Vec<String>>,
) -> Insert {
    let input = body.input.map(|inner| {
        let at = inner.tvf.loc;
        Box::new(insert_of(*inner, String::new(), at, None))
    });
    Insert {
        sink,
        loc,
        sink_columns,
        items: body.items,
        tvf: body.tvf,
        filter: body.filter,
        group_by: body.group_by,
        having: body.having,
        project: body.rows,
        qualify: body.qualify,
        input,
        join: body.join,
    }
}
