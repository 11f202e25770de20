//! Reading Avro records into rows. A writer schema is compiled once against
//! the table's columns into a [`ReadPlan`]: for each of the writer's
//! top-level fields, the column it fills (matched by name, as Avro's schema
//! resolution does) or nothing (its bytes are skipped). Columns the writer
//! lacks read their reader default (NULL unless a reader schema gives one).
//! Values are converted by Avro's promotion rules (int to long, float or
//! double; long to float or double; bytes to string); anything else is an
//! error naming the field. Nothing is built per record but the row.

use lowwater_core::{Row, Value};
use lowwater_sql::SqlType;

use super::binary::Cursor;
use super::schema::{Logical, NamedKind, Node, Schema};
use crate::json::Interner;

/// Records nest at most this deep (a recursive schema cannot make the
/// reader recurse without bound).
const MAX_DEPTH: usize = 256;

/// One writer field's step.
#[derive(Debug, Clone)]
struct Step {
    name: String,
    node: Node,
    /// (row position, column type), or skipped.
    col: Option<(usize, SqlType)>,
}

/// A writer schema compiled against a table's columns.
#[derive(Debug, Clone)]
pub struct ReadPlan {
    writer: Schema,
    steps: Vec<Step>,
    /// Columns the writer does not have, with their reader default.
    fill: Vec<(usize, Value)>,
}

impl ReadPlan {
    /// Compiles `writer` for the columns `cols` (name, row position, type).
    /// `reader`, when given, supplies defaults for columns the writer lacks.
    pub fn new(
        writer: Schema,
        cols: &[(String, usize, SqlType)],
        reader: Option<&Schema>,
    ) -> Result<ReadPlan, String> {
        let fields = writer.record_fields().ok_or(
            "the writer schema is not a record (a table's row is read from an Avro record)",
        )?;
        let steps = fields
            .iter()
            .map(|f| Step {
                name: f.name.clone(),
                node: f.node.clone(),
                col: cols
                    .iter()
                    .find(|(n, _, _)| *n == f.name)
                    .map(|(_, c, t)| (*c, *t)),
            })
            .collect::<Vec<_>>();
        let mut fill = Vec::new();
        for (name, c, ty) in cols {
            if fields.iter().any(|f| f.name == *name) {
                continue;
            }
            let field = reader
                .and_then(|r| r.record_fields())
                .and_then(|rf| rf.iter().find(|f| f.name == *name));
            let value = match field {
                // Avro's resolution: a reader field the writer lacks takes
                // its default, and without one the record cannot be read.
                Some(f) => match f.default.as_deref() {
                    Some(d) => json_default(d, *ty, name)?,
                    None => {
                        return Err(format!(
                            "the writer schema has no field '{name}' and the reader schema \
                             (avro-confluent.schema) gives it no default (missing required field)"
                        ))
                    }
                },
                // The derived reader schema: nullable, default null.
                None => Value::Null,
            };
            fill.push((*c, value));
        }
        Ok(ReadPlan {
            writer,
            steps,
            fill,
        })
    }

    /// Reads one record (`bytes`, without any framing) into `row`, which is
    /// resized to `width`; columns not read are NULL.
    pub fn read(
        &self,
        bytes: &[u8],
        row: &mut Row,
        width: usize,
        strings: &mut Interner,
    ) -> Result<(), String> {
        row.clear();
        row.resize(width, Value::Null);
        let mut cur = Cursor::new(bytes);
        let mut r = Reader {
            schema: &self.writer,
            cur: &mut cur,
            strings,
        };
        for s in &self.steps {
            match s.col {
                Some((c, ty)) => {
                    row[c] = r
                        .value(&s.node, ty)
                        .map_err(|e| format!("field '{}': {e}", s.name))?;
                }
                None => r
                    .skip(&s.node, 0)
                    .map_err(|e| format!("field '{}': {e}", s.name))?,
            }
        }
        // Bytes after the record are ignored, as Flink's reader does.
        for (c, v) in &self.fill {
            row[*c] = v.clone();
        }
        Ok(())
    }
}

struct Reader<'s, 'b, 'c> {
    schema: &'s Schema,
    cur: &'c mut Cursor<'b>,
    strings: &'c mut Interner,
}

/// Whether `node` is always encoded in zero bytes (null, a record of such).
fn zero_size(schema: &Schema, node: &Node, depth: usize) -> bool {
    match node {
        Node::Null => true,
        Node::Named(i) if depth < MAX_DEPTH => match &schema.named[*i].kind {
            NamedKind::Record(fields) => {
                fields.iter().all(|f| zero_size(schema, &f.node, depth + 1))
            }
            NamedKind::Fixed(0, _) => true,
            _ => false,
        },
        _ => false,
    }
}

impl Reader<'_, '_, '_> {
    /// The union branch the next index selects.
    fn branch<'n>(&mut self, branches: &'n [Node]) -> Result<&'n Node, String> {
        let at = self.cur.pos();
        let i = self.cur.long()?;
        usize::try_from(i)
            .ok()
            .and_then(|i| branches.get(i))
            .ok_or_else(|| format!("union branch {i} at byte {at} does not exist"))
    }

    fn value(&mut self, node: &Node, ty: SqlType) -> Result<Value, String> {
        let cannot = |what: &str| {
            Err(format!(
                "the writer's {what} cannot be read as {} (Avro's schema resolution)",
                ty.name()
            ))
        };
        Ok(match (node, ty) {
            (Node::Null, _) => Value::Null,
            (Node::Union(branches), _) => {
                let b = self.branch(branches)?;
                return self.value(b, ty);
            }
            (Node::Boolean, SqlType::Boolean) => Value::Bool(self.cur.boolean()?),
            // Schema resolution ignores logical types: a timestamp-millis
            // long reads into BIGINT, a date int into INT, as in Flink.
            // An Avro int into TINYINT/SMALLINT narrows as Flink's
            // converter does (Integer.byteValue / shortValue).
            // A date: days since the epoch, as DATE holds it.
            (Node::Int(Logical::Date), SqlType::Date) => Value::Int(i64::from(self.cur.int()?)),
            (Node::Int(_), SqlType::TinyInt | SqlType::SmallInt) => {
                Value::Int(ty.wrap(i64::from(self.cur.int()?)))
            }
            (Node::Int(_), SqlType::Int | SqlType::BigInt) => {
                Value::Int(i64::from(self.cur.int()?))
            }
            (Node::Long(_), SqlType::BigInt) => Value::Int(self.cur.long()?),
            (Node::Int(_), SqlType::Double) => Value::Double(f64::from(self.cur.int()?)),
            (Node::Long(_), SqlType::Double) => Value::Double(self.cur.long()? as f64),
            (Node::Float, SqlType::Float | SqlType::Double) => {
                Value::Double(f64::from(self.cur.float()?))
            }
            (Node::Int(_), SqlType::Float) => Value::Double(f64::from(self.cur.int()? as f32)),
            (Node::Long(_), SqlType::Float) => Value::Double(f64::from(self.cur.long()? as f32)),
            (Node::Double, SqlType::Double) => Value::Double(self.cur.double()?),
            (Node::String, SqlType::String) => self.strings.get(self.cur.string()?),
            (Node::Bytes(Logical::None), SqlType::String) => {
                let b = self.cur.bytes()?;
                let s = std::str::from_utf8(b)
                    .map_err(|e| format!("bytes that are not UTF-8 ({e})"))?;
                self.strings.get(s)
            }
            (Node::Long(l), SqlType::Timestamp | SqlType::TimestampLtz) => {
                let v = self.cur.long()?;
                let ms = match l {
                    Logical::None | Logical::TimestampMillis | Logical::LocalTimestampMillis => v,
                    Logical::TimestampMicros | Logical::LocalTimestampMicros => v.div_euclid(1_000),
                    Logical::TimestampNanos => v.div_euclid(1_000_000),
                    other => return cannot(&format!("long with logical type {other:?}")),
                };
                Value::Timestamp(ms)
            }
            (Node::Named(i), _) => match &self.schema.named[*i].kind {
                NamedKind::Enum(_) => return cannot("enum"),
                NamedKind::Fixed(..) => return cannot("fixed"),
                _ => return cannot("record"),
            },
            (Node::Int(_), _) => return cannot("int"),
            (Node::Long(_), _) => return cannot("long"),
            (Node::Float, _) => return cannot("float"),
            (Node::Double, _) => return cannot("double"),
            (Node::Boolean, _) => return cannot("boolean"),
            (Node::String, _) => return cannot("string"),
            (Node::Bytes(_), _) => return cannot("bytes"),
            (Node::Array(_), _) => return cannot("array"),
            (Node::Map(_), _) => return cannot("map"),
        })
    }

    fn skip(&mut self, node: &Node, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("the record nests deeper than {MAX_DEPTH} levels"));
        }
        match node {
            Node::Null => {}
            Node::Boolean => {
                self.cur.boolean()?;
            }
            Node::Int(_) | Node::Long(_) => {
                self.cur.long()?;
            }
            Node::Float => {
                self.cur.take(4)?;
            }
            Node::Double => {
                self.cur.take(8)?;
            }
            Node::Bytes(_) | Node::String => {
                self.cur.bytes()?;
            }
            Node::Union(branches) => {
                let b = self.branch(branches)?;
                self.skip(b, depth + 1)?;
            }
            Node::Array(item) | Node::Map(item) => loop {
                let n = self.cur.block()?;
                if n == 0 {
                    break;
                }
                let is_map = matches!(node, Node::Map(_));
                // Items of no bytes (nulls, empty records) need no reading,
                // however many a record claims; every other item (and every
                // map entry, with its key) takes at least a byte, so the
                // record's size bounds them.
                if !is_map && zero_size(self.schema, item, 0) {
                    continue;
                }
                if n > self.cur.remaining() as u64 {
                    return Err(format!(
                        "a block of {n} items with {} bytes left",
                        self.cur.remaining()
                    ));
                }
                for _ in 0..n {
                    if is_map {
                        self.cur.bytes()?;
                    }
                    self.skip(item, depth + 1)?;
                }
            },
            Node::Named(i) => match &self.schema.named[*i].kind {
                NamedKind::Record(fields) => {
                    for f in fields {
                        self.skip(&f.node, depth + 1)?;
                    }
                }
                NamedKind::Enum(_) => {
                    self.cur.long()?;
                }
                NamedKind::Fixed(n, _) => {
                    self.cur.take(*n)?;
                }
                NamedKind::Pending => return Err("a schema type still being defined".into()),
            },
        }
        Ok(())
    }
}

/// A field default (JSON text) as a value of a column of type `ty`.
fn json_default(text: &str, ty: SqlType, name: &str) -> Result<Value, String> {
    let v: sonic_rs::Value = sonic_rs::from_str(text)
        .map_err(|e| format!("the reader schema's default of '{name}' is not JSON: {e}"))?;
    use sonic_rs::JsonValueTrait;
    let bad = || {
        format!(
            "the reader schema's default of '{name}' ({text}) is not a {}",
            ty.name()
        )
    };
    Ok(match ty {
        _ if v.is_null() => Value::Null,
        SqlType::String => Value::str(v.as_str().ok_or_else(bad)?),
        SqlType::TinyInt
        | SqlType::SmallInt
        | SqlType::Int
        | SqlType::BigInt
        | SqlType::Timestamp
        | SqlType::TimestampLtz
        | SqlType::Date => {
            let i = v.as_i64().ok_or_else(bad)?;
            if ty.is_integer() || ty == SqlType::Date {
                Value::Int(i)
            } else {
                Value::Timestamp(i)
            }
        }
        SqlType::Float => Value::Double(crate::json::float32(v.as_f64().ok_or_else(bad)?)),
        SqlType::Double => Value::Double(v.as_f64().ok_or_else(bad)?),
        SqlType::Boolean => Value::Bool(v.as_bool().ok_or_else(bad)?),
        SqlType::Decimal(..) => return Err("DECIMAL columns are not supported with Avro".into()),
    })
}
