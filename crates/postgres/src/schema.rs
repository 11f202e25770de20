//! The checks a job makes on its PostgreSQL table before it writes a row:
//! the table exists, lowwater's user may write it, every sink column is a
//! column of it with a type that holds the values unchanged, the columns
//! left out can be, and an upsert's key is a unique key of the table.

use lowwater_sql::SqlType;
use postgres::Client;

use crate::text::Shape;

/// A sink column as the job declares it.
#[derive(Debug, Clone)]
pub struct SinkColumn {
    /// Its name in the job.
    pub name: String,
    /// Its type in the job.
    pub ty: SqlType,
}

/// The table as checked: what the statements write.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The table, quoted (`"gold"."stock_out_alerts"`).
    pub table: String,
    /// Each sink column's name in the table, quoted, and how its values
    /// are written.
    pub columns: Vec<(String, Shape)>,
}

/// A name as PostgreSQL reads it unquoted: its ASCII letters in lower
/// case (others as they are). lowwater quotes the folded name, so that a
/// column named like a keyword works too.
pub fn fold(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// `name` quoted as an identifier.
pub fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The PostgreSQL column types a sink column of type `ty` may be written
/// to without a change of its values.
fn fits(ty: SqlType, pg: &str) -> bool {
    let base = &base_type(pg);
    let base = base.as_str();
    match ty {
        SqlType::String => [
            "text",
            "character varying",
            "character",
            "json",
            "jsonb",
            "uuid",
            "citext",
        ]
        .contains(&base),
        SqlType::TinyInt | SqlType::SmallInt => {
            ["smallint", "integer", "bigint", "numeric"].contains(&base)
        }
        SqlType::Int => ["integer", "bigint", "numeric"].contains(&base),
        SqlType::BigInt => ["bigint", "numeric"].contains(&base),
        SqlType::Float => ["real", "double precision", "numeric"].contains(&base),
        SqlType::Double => ["double precision", "numeric"].contains(&base),
        SqlType::Boolean => base == "boolean",
        SqlType::Timestamp => base == "timestamp without time zone",
        SqlType::TimestampLtz => base == "timestamp with time zone",
        SqlType::Decimal(..) => base == "numeric",
        SqlType::Date => base == "date",
    }
}

/// A type without its modifiers: `timestamp(3) without time zone` is
/// `timestamp without time zone`, `numeric(12,2)` is `numeric`.
fn base_type(pg: &str) -> String {
    let mut out = String::with_capacity(pg.len());
    let mut depth = 0;
    for c in pg.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Why a column of type `pg` would change values of type `ty`, if it
/// would: a `numeric(P, S)` too narrow for the type's digits (a DOUBLE
/// or FLOAT only into an unconstrained `numeric`), a timestamp that keeps
/// fewer than 3 fractional digits.
fn value_loss(ty: SqlType, pg: &str) -> Option<String> {
    if pg.starts_with("timestamp(") {
        let digits: u32 = pg
            .trim_start_matches("timestamp(")
            .split(')')
            .next()?
            .trim()
            .parse()
            .ok()?;
        return (digits < 3).then(|| {
            format!("{pg} keeps {digits} fractional digits of a second: PostgreSQL would round the milliseconds")
        });
    }
    let (p, s) = match ty {
        SqlType::Decimal(p, s) => (p, s),
        SqlType::TinyInt => (3, 0),
        SqlType::SmallInt => (5, 0),
        SqlType::Int => (10, 0),
        SqlType::BigInt => (19, 0),
        SqlType::Float | SqlType::Double if pg.starts_with("numeric(") => {
            return Some(format!(
                "{pg} rounds a {} to its scale: use double precision or an unconstrained numeric",
                ty.name()
            ))
        }
        _ => return None,
    };
    let args = pg.strip_prefix("numeric(")?.strip_suffix(')')?;
    let (pp, ss) = args.split_once(',').unwrap_or((args, "0"));
    let (pp, ss): (i32, i32) = (pp.trim().parse().ok()?, ss.trim().parse().ok()?);
    let (p, s) = (i32::from(p), i32::from(s));
    if ss < s {
        return Some(format!(
            "{pg} keeps {ss} decimal places and DECIMAL({p}, {s}) has {s}: PostgreSQL would round \
             them"
        ));
    }
    if pp - ss < p - s {
        return Some(format!(
            "{pg} holds {} digits before the point and {} has up to {}: larger values would fail",
            pp - ss,
            ty.full_name(),
            p - s
        ));
    }
    None
}

/// The type to give a column for values of type `ty`, in messages.
fn suggested(ty: SqlType) -> String {
    match ty {
        SqlType::String => "text".into(),
        SqlType::TinyInt | SqlType::SmallInt => "smallint".into(),
        SqlType::Int => "integer".into(),
        SqlType::BigInt => "bigint".into(),
        SqlType::Float => "real".into(),
        SqlType::Double => "double precision".into(),
        SqlType::Boolean => "boolean".into(),
        SqlType::Timestamp => "timestamp(3)".into(),
        SqlType::TimestampLtz => "timestamptz(3)".into(),
        SqlType::Decimal(p, s) => format!("numeric({p}, {s})"),
        SqlType::Date => "date".into(),
    }
}

/// Checks table `schema.table` (`schema` `None`: the search path's) for
/// the sink's columns, and, with `key` (positions in `columns`), that the
/// key is a unique key of the table. `server` names the server in messages.
pub fn check(
    client: &mut Client,
    (schema, table): (Option<&str>, &str),
    columns: &[SinkColumn],
    key: Option<&[usize]>,
    server: &str,
) -> Result<Checked, String> {
    let quoted = match schema {
        Some(s) => format!("{}.{}", quote(s), quote(table)),
        None => quote(table),
    };
    let shown = match schema {
        Some(s) => format!("{s}.{table}"),
        None => table.to_string(),
    };
    let db = |e: postgres::Error| crate::describe(&e, server);
    let found = client
        .query_opt(
            "SELECT c.oid, has_table_privilege(c.oid, 'INSERT'), \
             has_table_privilege(c.oid, 'UPDATE'), c.relkind::text \
             FROM pg_class c WHERE c.oid = to_regclass($1)",
            &[&quoted],
        )
        .map_err(db)?;
    let Some(row) = found else {
        let path = match schema {
            Some(_) => String::new(),
            None => " (on the search path)".to_string(),
        };
        return Err(format!(
            "table {shown} does not exist in {server}{path}: create it (CREATE TABLE {shown} \
             (...)) or correct 'table-name'"
        ));
    };
    let oid: postgres::types::Oid = row.get(0);
    let (insert, update): (bool, bool) = (row.get(1), row.get(2));
    let kind: String = row.get(3);
    if !["r", "p"].contains(&kind.as_str()) {
        return Err(format!(
            "{shown} in {server} is not a table (pg_class.relkind '{kind}'); lowwater writes tables"
        ));
    }
    if !insert || (key.is_some() && !update) {
        let need = if key.is_some() {
            "INSERT and UPDATE (an upsert)"
        } else {
            "INSERT"
        };
        return Err(format!(
            "the user may not write table {shown} in {server}: GRANT {need} on it"
        ));
    }
    // (name, type, NOT NULL, has a default or is generated, written only by
    // the server: GENERATED ALWAYS AS IDENTITY or a generated column)
    let pg_columns: Vec<(String, String, bool, bool, bool)> = client
        .query(
            "SELECT attname::text, format_type(atttypid, atttypmod), attnotnull, \
             atthasdef OR attidentity <> '' OR attgenerated <> '', \
             attidentity = 'a' OR attgenerated <> '' \
             FROM pg_attribute WHERE attrelid = $1 AND attnum > 0 AND NOT attisdropped \
             ORDER BY attnum",
            &[&oid],
        )
        .map_err(db)?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect();
    let mut out = Vec::with_capacity(columns.len());
    for c in columns {
        let folded = fold(&c.name);
        let Some((name, pg, _, _, server_only)) = pg_columns.iter().find(|(n, ..)| *n == folded)
        else {
            let have: Vec<&str> = pg_columns.iter().map(|(n, ..)| n.as_str()).collect();
            return Err(format!(
                "table {shown} in {server} has no column '{folded}' for sink column '{}'; its \
                 columns: {}. Add it (ALTER TABLE {shown} ADD COLUMN {folded} {}) or rename the \
                 sink column",
                c.name,
                have.join(", "),
                suggested(c.ty)
            ));
        };
        if *server_only {
            return Err(format!(
                "column '{name}' of {shown} in {server} is written by the server only \
                 (GENERATED ALWAYS): leave it out of the sink table"
            ));
        }
        if !fits(c.ty, pg) {
            return Err(format!(
                "column '{name}' of {shown} in {server} is {pg}, which does not hold sink column \
                 '{}' ({}) unchanged; make it {}",
                c.name,
                c.ty.full_name(),
                suggested(c.ty)
            ));
        }
        if let Some(why) = value_loss(c.ty, pg) {
            return Err(format!(
                "column '{name}' of {shown} in {server}: {why}; make it {}",
                suggested(c.ty)
            ));
        }
        let shape = match c.ty {
            SqlType::Timestamp => Shape::Timestamp,
            SqlType::TimestampLtz => Shape::TimestampTz,
            SqlType::Date => Shape::Date,
            _ => Shape::Plain,
        };
        out.push((quote(name), shape));
    }
    let written: Vec<String> = columns.iter().map(|c| fold(&c.name)).collect();
    if let Some((n, ..)) = pg_columns
        .iter()
        .find(|(n, _, not_null, default, _)| *not_null && !*default && !written.contains(n))
    {
        return Err(format!(
            "column '{n}' of {shown} in {server} is NOT NULL without a default, and the sink \
             does not write it: add it to the sink table, or give it a DEFAULT"
        ));
    }
    if let Some(key) = key {
        // The buffer keeps each key's last row by the key's text: a type
        // that holds two texts as one value would put both in one
        // statement, which PostgreSQL refuses.
        for &k in key {
            let Some(c) = columns.get(k) else { continue };
            let folded = fold(&c.name);
            let pg = pg_columns
                .iter()
                .find(|(n, ..)| *n == folded)
                .map_or(String::new(), |(_, t, ..)| base_type(t));
            if ["uuid", "citext", "character", "json", "jsonb"].contains(&pg.as_str()) {
                return Err(format!(
                    "key column '{folded}' of {shown} in {server} is {pg}, which compares texts \
                     that differ as equal (case, padding or spacing): an upsert key of a STRING \
                     column must be text or character varying"
                ));
            }
        }
        let wanted: Vec<&String> = key.iter().filter_map(|&k| written.get(k)).collect();
        let uniques: Vec<Vec<String>> = client
            .query(
                "SELECT array_agg(a.attname::text ORDER BY a.attname) FROM pg_index i \
                 JOIN pg_attribute a ON a.attrelid = i.indrelid \
                   AND a.attnum = ANY((i.indkey::int2[])[0:i.indnkeyatts - 1]) \
                 WHERE i.indrelid = $1 AND i.indisunique AND i.indimmediate \
                   AND i.indpred IS NULL AND i.indexprs IS NULL \
                 GROUP BY i.indexrelid",
                &[&oid],
            )
            .map_err(db)?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let mut sorted: Vec<String> = wanted.iter().map(|s| s.to_string()).collect();
        sorted.sort();
        if !uniques.contains(&sorted) {
            let cols = wanted
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            return Err(format!(
                "the sink's PRIMARY KEY ({cols}) is not a unique key of table {shown} in \
                 {server}, and an upsert (INSERT ... ON CONFLICT ({cols})) needs one: ALTER \
                 TABLE {shown} ADD PRIMARY KEY ({cols}) (or a UNIQUE constraint on them)"
            ));
        }
    }
    Ok(Checked {
        table: quoted,
        columns: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_that_hold_values_unchanged() {
        assert!(fits(SqlType::BigInt, "bigint"));
        assert!(!fits(SqlType::BigInt, "integer"));
        assert!(fits(SqlType::String, "character varying(20)"));
        assert!(fits(SqlType::Timestamp, "timestamp(3) without time zone"));
        assert!(value_loss(SqlType::Timestamp, "timestamp(0) without time zone").is_some());
        assert!(value_loss(SqlType::Timestamp, "timestamp(6) without time zone").is_none());
        assert!(value_loss(SqlType::BigInt, "numeric(18,0)").is_some());
        assert!(value_loss(SqlType::Int, "numeric(12,2)").is_none());
        assert!(value_loss(SqlType::Double, "numeric(12,2)").is_some());
        assert!(value_loss(SqlType::Double, "numeric").is_none());
        assert!(!fits(SqlType::Timestamp, "timestamp with time zone"));
        assert!(fits(SqlType::Decimal(10, 2), "numeric(12,2)"));
        assert!(value_loss(SqlType::Decimal(10, 2), "numeric(12,2)").is_none());
        assert!(value_loss(SqlType::Decimal(10, 2), "numeric(12,1)").is_some());
        assert!(value_loss(SqlType::Decimal(10, 2), "numeric(9,2)").is_some());
        assert!(value_loss(SqlType::Decimal(10, 2), "numeric").is_none());
    }

    #[test]
    fn names_fold_and_quote_as_postgres_does() {
        assert_eq!(fold("AlertedAt"), "alertedat");
        assert_eq!(fold("Größe"), "größe");
        assert_eq!(quote("a\"b"), "\"a\"\"b\"");
    }
}
