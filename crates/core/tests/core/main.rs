//! lowwater-core's integration tests, in one binary so they link once:
//! the SEMANTICS.md test vectors, the seed incidents, and property tests.

mod backlog;
mod batch;
mod harness_cases;
mod incidents;
mod javafmt;
mod join_rescale;
mod properties;
mod rescale;
mod restore;
mod state;
mod vectors;
