//! How a policy is written in a scenario (and in `--control`): `Search` may be written bare or
//! with parameters (`Search(playouts: 400)`), which serde's derive cannot read from RON (a
//! struct variant always wants its parentheses), so `Policy` is read by hand here.

use super::Policy;
use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserialize, Deserializer, EnumAccess, MapAccess, VariantAccess, Visitor};
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

/// `Search`'s parameters, each with a default that plays well out of the box
/// (docs/scenario.md, "Search").
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchSpec {
    /// Playouts per decision, shared among its candidates.
    #[serde(default = "default_playouts")]
    pub playouts: u32,
    /// How the searcher's own later decisions are made inside a playout (not `Search`).
    #[serde(default = "default_rollout")]
    pub rollout: Box<Policy>,
    /// UCB1's exploration constant: how much a candidate tried less is tried again.
    #[serde(default = "default_exploration")]
    pub exploration: f64,
    /// How many rounds a playout looks ahead, counting the current one; absent: to the end.
    #[serde(default)]
    pub rounds: Option<u32>,
    /// The encounter is solved exactly, for exact play, when it takes at most this many
    /// positions (0: never; played by playouts alone); absent, `EXACT_PER_PLAYOUT` times the
    /// playouts (1,000,000 at the default 200; at most `MAX_EXACT`): the effort of exact play
    /// follows the effort asked.
    #[serde(default)]
    pub exact: Option<u64>,
}

pub const DEFAULT_PLAYOUTS: u32 = 200;

/// The most playouts one `Search` decision may have (docs/reliability.md): a decision's cost is
/// bounded, `playouts: 1000000000` ran for hours. Larger is refused wherever a policy is read
/// (scenarios, test files, `--control`, `--skill`) and when a scenario is resolved.
pub const MAX_PLAYOUTS: u32 = 100_000;

/// Why `playouts` is refused, or `None`.
pub fn playouts_refused(playouts: u32) -> Option<String> {
    (playouts > MAX_PLAYOUTS).then(|| {
        format!(
            "a `Search` has at most {MAX_PLAYOUTS} playouts a decision (tempo's limit: a decision's cost is bounded), \
             not {playouts}"
        )
    })
}
pub const DEFAULT_EXPLORATION: f64 = 0.5;
/// Positions of the exact solve per playout, where `exact` is not given.
pub const EXACT_PER_PLAYOUT: u64 = 5000;

/// The largest exact budget (docs/reliability.md): a solve keeps a value for each state it
/// merges, about 400 bytes a position, so ten million positions is a few GB.
pub const MAX_EXACT: u64 = 10_000_000;

/// Why `exact` is refused, or `None`.
pub fn exact_refused(exact: Option<u64>) -> Option<String> {
    let exact = exact?;
    (exact > MAX_EXACT).then(|| {
        format!(
            "a `Search` solves at most {MAX_EXACT} positions exactly (tempo's limit: a solve's memory is bounded), \
             not {exact}"
        )
    })
}

fn default_playouts() -> u32 {
    DEFAULT_PLAYOUTS
}

fn default_rollout() -> Box<Policy> {
    Box::new(Policy::Greedy)
}

fn default_exploration() -> f64 {
    DEFAULT_EXPLORATION
}

impl Default for SearchSpec {
    fn default() -> SearchSpec {
        SearchSpec {
            playouts: DEFAULT_PLAYOUTS,
            rollout: default_rollout(),
            exploration: DEFAULT_EXPLORATION,
            rounds: None,
            exact: None,
        }
    }
}

#[derive(serde::Deserialize)]
enum Name {
    Aggressive,
    HoldBack,
    Greedy,
    Random,
    Passive,
    Search,
}

const NAMES: &[&str] = &["Aggressive", "HoldBack", "Greedy", "Random", "Passive", "Search"];

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct HoldBackFields {
    pool: String,
    keep: i64,
    #[serde(default)]
    spend_on_reactions: bool,
}

impl<'de> Deserialize<'de> for Policy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Policy, D::Error> {
        d.deserialize_enum("Policy", NAMES, PolicyVisitor)
    }
}

struct PolicyVisitor;

impl<'de> Visitor<'de> for PolicyVisitor {
    type Value = Policy;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a policy: Aggressive, HoldBack(pool: ..., keep: ...), Greedy, Random, Passive or Search")
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Policy, A::Error> {
        let (name, v) = data.variant::<Name>()?;
        match name {
            Name::Aggressive => v.unit_variant().map(|()| Policy::Aggressive),
            Name::Greedy => v.unit_variant().map(|()| Policy::Greedy),
            Name::Random => v.unit_variant().map(|()| Policy::Random),
            Name::Passive => v.unit_variant().map(|()| Policy::Passive),
            Name::HoldBack => {
                const FIELDS: &[&str] = &["pool", "keep", "spend_on_reactions"];
                let entered = Cell::new(false);
                let h: HoldBackFields = v.struct_variant(FIELDS, Fields::new(&entered))?;
                Ok(Policy::HoldBack { pool: h.pool, keep: h.keep, spend_on_reactions: h.spend_on_reactions })
            }
            Name::Search => {
                const FIELDS: &[&str] = &["playouts", "rollout", "exploration", "rounds", "exact"];
                let entered = Cell::new(false);
                match v.struct_variant(FIELDS, Fields::<SearchSpec>::new(&entered)) {
                    Ok(spec) => match playouts_refused(spec.playouts).or_else(|| exact_refused(spec.exact)) {
                        Some(why) => Err(serde::de::Error::custom(why)),
                        None => Ok(Policy::Search(spec)),
                    },
                    // No parentheses: the reader stopped before taking anything, and `Search`
                    // alone means every parameter at its default.
                    Err(_) if !entered.get() => Ok(Policy::Search(SearchSpec::default())),
                    Err(e) => Err(e),
                }
            }
        }
    }
}

/// Reads a struct variant's fields into `T`, noting that the fields were reached (the
/// parentheses were there).
struct Fields<'a, T> {
    entered: &'a Cell<bool>,
    of: PhantomData<T>,
}

impl<'a, T> Fields<'a, T> {
    fn new(entered: &'a Cell<bool>) -> Fields<'a, T> {
        Fields { entered, of: PhantomData }
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for Fields<'_, T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the policy's parameters in parentheses")
    }

    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<T, M::Error> {
        self.entered.set(true);
        T::deserialize(MapAccessDeserializer::new(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Policy, String> {
        ron::from_str::<Policy>(text).map_err(|e| e.to_string())
    }

    #[test]
    fn search_is_written_bare_or_with_parameters() {
        assert_eq!(read("Search"), Ok(Policy::Search(SearchSpec::default())));
        assert_eq!(read("Search()"), Ok(Policy::Search(SearchSpec::default())));
        let Ok(Policy::Search(s)) = read("Search(playouts: 40, rollout: Random, rounds: Some(2))") else {
            panic!("not read");
        };
        assert_eq!((s.playouts, *s.rollout, s.rounds), (40, Policy::Random, Some(2)));
        assert!(read("Search(playout: 40)").unwrap_err().contains("playout"));
        assert!(read("Search(playouts: 100000)").is_ok());
        assert!(read("Search(playouts: 100001)").unwrap_err().contains("at most 100000 playouts"));
        let hold = |spend| Policy::HoldBack { pool: "ap".into(), keep: 1, spend_on_reactions: spend };
        assert_eq!(read("HoldBack(pool: \"ap\", keep: 1)"), Ok(hold(false)));
        assert_eq!(read("HoldBack(pool: \"ap\", keep: 1, spend_on_reactions: true)"), Ok(hold(true)));
        assert!(read("HoldBack(pool: \"ap\")").is_err());
        assert_eq!(read("Greedy"), Ok(Policy::Greedy));
        assert!(read("Greed").is_err());
    }
}
