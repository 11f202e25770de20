//! The replay's input dumps: read and ordered by `lowwater-connectors`
//! (shared with `lowwater run --input`), re-exported here.

pub use lowwater_connectors::input::*;
