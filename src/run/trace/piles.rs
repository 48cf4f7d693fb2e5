//! The piles of the end of an encounter that no one participant holds. A leaf.

use super::Name;
use serde::Serialize;
use std::collections::BTreeMap;

/// The piles no one participant holds, for `encounter_end`: each pile kept `shared`, listed
/// once, and each side's piles kept `per side`, once for the side (by side name). What a pile
/// holds is written as a participant's is: its items' names, in the order of their set.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TablePiles {
    #[serde(rename = "shared_piles", skip_serializing_if = "BTreeMap::is_empty")]
    pub shared: BTreeMap<Name, Vec<Name>>,
    #[serde(rename = "side_piles", skip_serializing_if = "BTreeMap::is_empty")]
    pub sides: BTreeMap<Name, BTreeMap<Name, Vec<Name>>>,
}

/// Each side's pools kept `per side` by name, for `encounter_end`.
pub type SidePools = BTreeMap<Name, BTreeMap<Name, i64>>;
