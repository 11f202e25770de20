//! Writing rows as Avro records with a given schema: each field of the
//! schema's record takes the column of the same name (or its default when
//! the row has no such column). A NULL goes to a union's `null` branch; a
//! value to the first branch that can hold it.

use lowwater_core::Value;
use lowwater_sql::SqlType;

use super::binary::{put_bytes, put_long};
use super::schema::{Logical, NamedKind, Node, Schema};

#[derive(Debug, Clone)]
enum Source {
    /// The value at this position of the written columns.
    Column(usize),
    /// The field's default (NULL, or a constant the row does not carry).
    Default(Value),
}

/// A schema compiled against the written columns.
#[derive(Debug, Clone)]
pub struct WritePlan {
    schema: Schema,
    fields: Vec<(String, Node, Source)>,
}

impl WritePlan {
    /// Compiles `schema` for rows whose values are `cols` (name, type), in
    /// that order.
    pub fn new(schema: Schema, cols: &[(String, SqlType)]) -> Result<WritePlan, String> {
        let fields = schema
            .record_fields()
            .ok_or("the schema to write is not a record (rows are written as Avro records)")?;
        let mut out = Vec::with_capacity(fields.len());
        for f in fields {
            let src = match cols.iter().position(|(n, _)| *n == f.name) {
                Some(i) => {
                    let sample = sample(cols[i].1);
                    let holds = match &f.node {
                        Node::Union(b) => b.iter().any(|b| fits(&schema, b, &sample)),
                        n => fits(&schema, n, &sample),
                    };
                    if !holds {
                        return Err(format!(
                            "the schema's field '{}' cannot hold the column's {} values",
                            f.name,
                            cols[i].1.name()
                        ));
                    }
                    Source::Column(i)
                }
                None => match f.default.as_deref() {
                    Some("null") => Source::Default(Value::Null),
                    _ => {
                        return Err(format!(
                            "the schema's field '{}' has no column of that name in the table \
                             and no null default",
                            f.name
                        ))
                    }
                },
            };
            out.push((f.name.clone(), f.node.clone(), src));
        }
        for (n, _) in cols {
            if !fields.iter().any(|f| f.name == *n) {
                return Err(format!(
                    "the table's column '{n}' has no field in the schema to write it to"
                ));
            }
        }
        Ok(WritePlan {
            schema,
            fields: out,
        })
    }

    /// Appends the record for `values` to `out`.
    pub fn write(&self, values: &[Value], out: &mut Vec<u8>) -> Result<(), String> {
        for (name, node, src) in &self.fields {
            let v = match src {
                Source::Column(i) => values.get(*i).unwrap_or(&Value::Null),
                Source::Default(v) => v,
            };
            self.value(node, v, out)
                .map_err(|e| format!("field '{name}': {e}"))?;
        }
        Ok(())
    }

    fn value(&self, node: &Node, v: &Value, out: &mut Vec<u8>) -> Result<(), String> {
        match (node, v) {
            (Node::Union(branches), _) => {
                let i = branches
                    .iter()
                    .position(|b| fits(&self.schema, b, v))
                    .ok_or_else(|| match v {
                        Value::Null => "NULL, and the field's type has no null".to_string(),
                        _ => format!("no branch of the field's union holds {v:?}"),
                    })?;
                put_long(out, i as i64);
                self.value(&branches[i], v, out)
            }
            (Node::Null, Value::Null) => Ok(()),
            (_, Value::Null) => Err("NULL, and the field's type has no null (NOT NULL)".into()),
            (Node::Boolean, Value::Bool(b)) => {
                out.push(u8::from(*b));
                Ok(())
            }
            (Node::Int(Logical::None | Logical::Date), Value::Int(i)) => {
                let i = i32::try_from(*i).map_err(|_| format!("{i} does not fit an Avro int"))?;
                put_long(out, i64::from(i));
                Ok(())
            }
            (Node::Long(Logical::None), Value::Int(i)) => {
                put_long(out, *i);
                Ok(())
            }
            (Node::Long(l), Value::Timestamp(ms)) if timestamp_logical(*l) => {
                let v = match l {
                    Logical::TimestampMicros | Logical::LocalTimestampMicros => {
                        ms.checked_mul(1_000)
                    }
                    Logical::TimestampNanos => ms.checked_mul(1_000_000),
                    _ => Some(*ms),
                };
                put_long(
                    out,
                    v.ok_or_else(|| format!("timestamp {ms} overflows the field"))?,
                );
                Ok(())
            }
            (Node::Float, Value::Double(d)) => {
                out.extend_from_slice(&(*d as f32).to_le_bytes());
                Ok(())
            }
            (Node::Double, Value::Double(d)) => {
                out.extend_from_slice(&d.to_le_bytes());
                Ok(())
            }
            (Node::Double, Value::Int(i)) => {
                out.extend_from_slice(&(*i as f64).to_le_bytes());
                Ok(())
            }
            (Node::Float, Value::Int(i)) => {
                out.extend_from_slice(&(*i as f32).to_le_bytes());
                Ok(())
            }
            (Node::String | Node::Bytes(Logical::None), Value::Str(s)) => {
                put_bytes(out, s.as_bytes());
                Ok(())
            }
            (Node::Named(i), Value::Str(s)) => match &self.schema.named[*i].kind {
                NamedKind::Enum(symbols) => {
                    let at = symbols
                        .iter()
                        .position(|x| x.as_str() == &**s)
                        .ok_or_else(|| format!("'{s}' is not a symbol of the enum"))?;
                    put_long(out, at as i64);
                    Ok(())
                }
                _ => Err(format!(
                    "a STRING cannot be written as {}",
                    self.schema.named[*i].name
                )),
            },
            (n, v) => Err(format!("{v:?} cannot be written as Avro {n:?}")),
        }
    }
}

/// Whether a long with logical type `l` holds a timestamp.
fn timestamp_logical(l: Logical) -> bool {
    matches!(
        l,
        Logical::None
            | Logical::TimestampMillis
            | Logical::TimestampMicros
            | Logical::TimestampNanos
            | Logical::LocalTimestampMillis
            | Logical::LocalTimestampMicros
    )
}

/// A value of type `ty`, to check that a field can hold the column.
fn sample(ty: SqlType) -> Value {
    match ty {
        SqlType::String => Value::str(""),
        SqlType::TinyInt | SqlType::SmallInt | SqlType::Int | SqlType::BigInt | SqlType::Date => {
            Value::Int(0)
        }
        SqlType::Float | SqlType::Double => Value::Double(0.0),
        SqlType::Boolean => Value::Bool(false),
        SqlType::Timestamp | SqlType::TimestampLtz => Value::Timestamp(0),
        SqlType::Decimal(_, s) => Value::decimal(0, s),
    }
}

/// Whether union branch `b` holds `v`.
fn fits(schema: &Schema, b: &Node, v: &Value) -> bool {
    match (b, v) {
        (Node::Null, Value::Null) => true,
        (Node::Boolean, Value::Bool(_)) => true,
        (Node::Int(Logical::None | Logical::Date), Value::Int(i)) => i32::try_from(*i).is_ok(),
        (Node::Long(Logical::None), Value::Int(_)) => true,
        (Node::Long(l), Value::Timestamp(_)) => timestamp_logical(*l),
        // A DOUBLE column may carry integers (COUNT(*) into DOUBLE).
        (Node::Float | Node::Double, Value::Double(_) | Value::Int(_)) => true,
        (Node::String | Node::Bytes(Logical::None), Value::Str(_)) => true,
        (Node::Named(i), Value::Str(_)) => matches!(schema.named[*i].kind, NamedKind::Enum(_)),
        _ => false,
    }
}
