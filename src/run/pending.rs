//! What is under way: pool changes whose thresholds have not been looked at, changes to
//! `state_order` pools a rule has made but not yet applied in that order, answers being
//! resolved (how deep, whether one cancelled what it answers), readied actions, declarations
//! waiting to resolve, and multi-round actions.
//!
//! `act.rs` opens and closes answers and readies; `effects.rs` adds pool changes and settles
//! them; `encounter.rs` resolves what waits at the end of a phase and continues what is ongoing
//! at a turn's start. Nothing here survives the encounter.

use super::ctx::Ctx;
use super::trace::Cause;
use crate::ir;

/// A multi-round action under way.
#[derive(Debug, Clone)]
pub(crate) struct Ongoing {
    pub who: usize,
    pub action: ir::ActionId,
    /// Turns still to pay for before it resolves.
    pub left: i64,
    pub(crate) ctx: Ctx,
}

/// An action readied for an event (001, Ready Action).
#[derive(Debug, Clone)]
pub struct Readied {
    pub who: usize,
    pub action: ir::ActionId,
    pub target: Option<usize>,
    pub on: ir::EventRef,
    /// Only what a participant so related to `who` does sets it off (`by: "enemy"`).
    pub by: Option<ir::Relation>,
    pub keep: bool,
}

/// A turn granted by a reaction (`grants turn`), under way (granted.rs).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Granted {
    pub who: usize,
    /// The reactor's own values of the budget's pools, put back when the turn ends.
    pub kept: Vec<(ir::PoolId, i64)>,
    /// `limit move`: units its moves may still go.
    pub moves_left: Option<i64>,
    /// `limit actions`: actions it may still declare.
    pub actions_left: Option<i64>,
}

/// A declaration paid for and waiting to resolve: in a simultaneous phase until everyone has
/// declared, in a reaction chain until every reaction to the event has.
#[derive(Debug, Clone)]
pub(crate) struct Deferred {
    pub who: usize,
    pub action: ir::ActionId,
    pub target: Option<usize>,
    pub(crate) ctx: Ctx,
    pub cause: Cause,
    /// The `seq` of its `action` event, the cause of what its resolution does.
    pub seq: Option<u64>,
}

/// A change a rule made to a pool named in `state_order`, held until the rule's run of pool
/// changes ends (`Engine::flush`). The world already shows `to`, so the rule's own reads see it;
/// the trace, the thresholds and the order of the changes wait for the flush, which puts `from`
/// back and applies the change again (`op` with `value`) in `state_order`.
#[derive(Debug, Clone)]
pub(crate) struct Staged {
    pub who: usize,
    pub pool: ir::PoolId,
    pub op: ir::AssignOp,
    pub value: i64,
    pub from: i64,
    pub to: i64,
    pub cause: Cause,
    /// The rule that made the change.
    pub rule: Option<ir::Loc>,
}

/// A pool change whose thresholds are to be looked at: (who, pool, old value, the `seq` of its
/// `pool` event, which a threshold it crosses names as its cause).
pub type Change = (usize, ir::PoolId, i64, Option<u64>);

/// A condition change a threshold made, held: (who, the effect, its rule, its cause's `seq`).
pub(crate) type HeldChange<'r> = (usize, &'r ir::Effect, ir::Loc, Option<u64>);

#[derive(Debug, Default)]
pub(crate) struct Pending<'r> {
    /// Pool changes whose thresholds have not been looked at yet.
    pub changed: Vec<Change>,
    /// Changes of pools with `immediately` thresholds, looked at after the effect that made them.
    pub(crate) immediate: Vec<Change>,
    /// A rule is running whose changes to `state_order` pools are held (`staged`); off while
    /// thresholds settle, whose pool effects apply at once.
    pub(crate) staging: bool,
    pub staged: Vec<Staged>,
    /// Condition changes from thresholds that a `flush` looked at, waiting for the next
    /// `settle` (an action finishes resolving before its target falls: Frontiers, "Damage While
    /// Down During Resolution"); `settle` also holds its own here while it works.
    pub conditions: Vec<HeldChange<'r>>,
    /// An interrupting answer (or a `maintain` that could not pay) cancelled what it answers.
    pub cancelled: bool,
    /// An interrupting answer ran `redirect`: what it answers goes on against this participant.
    pub redirected: Option<usize>,
    /// Set by an `emit` whose answers redirected it; the emitting rule takes it up at once.
    pub(crate) retarget: Option<usize>,
    /// How deeply answers to events are nested (triggers, gains, reactions).
    pub(crate) chain_depth: u32,
    /// How deeply reactions to reactions are nested.
    pub(crate) reaction_depth: u32,
    pub readied: Vec<Readied>,
    /// Per participant: it readied an action, so its turn is held open until the action is
    /// taken or the ready is dropped; its later turns are not taken meanwhile (001, Ready Action).
    pub holding: Vec<bool>,
    pub deferred: Vec<Deferred>,
    pub ongoing: Vec<Ongoing>,
    /// Granted turns under way, the innermost last.
    pub(crate) granted: Vec<Granted>,
}

impl<'r> Pending<'r> {
    pub fn reset(&mut self, n: usize) {
        self.changed.clear();
        self.immediate.clear();
        self.staging = false;
        self.staged.clear();
        self.conditions.clear();
        self.cancelled = false;
        self.redirected = None;
        self.retarget = None;
        self.chain_depth = 0;
        self.reaction_depth = 0;
        self.readied.clear();
        super::buffers::refill(&mut self.holding, n, false);
        self.deferred.clear();
        self.ongoing.clear();
        self.granted.clear();
    }

    /// Writes what is under way canonically (canon.rs): not the causes and event numbers, which
    /// only name things in the trace; an effect a threshold holds by where it is written.
    pub(crate) fn canon(&self, c: &mut super::canon::Canon) {
        let Pending {
            changed,
            immediate,
            staging,
            staged,
            conditions,
            cancelled,
            redirected,
            retarget,
            chain_depth,
            reaction_depth,
            readied,
            holding,
            deferred,
            ongoing,
            granted,
        } = self;
        for list in [changed, immediate] {
            c.n(list.len());
            for (who, pool, old, _seq) in list {
                c.put(&(who, pool, old));
            }
        }
        c.flag(*staging);
        c.n(staged.len());
        for s in staged {
            c.put(&(s.who, s.pool, s.op, s.value, s.from, s.to));
        }
        c.n(conditions.len());
        for (who, effect, loc, _seq) in conditions {
            c.put(&(who, loc));
            // Two effects written at one place are told apart by where they are in memory: the
            // same ruleset, so the same for the same effect within a run.
            c.n(std::ptr::from_ref::<crate::ir::Effect>(effect) as usize);
        }
        c.flag(*cancelled);
        c.put(redirected);
        c.put(retarget);
        c.put(&(chain_depth, reaction_depth));
        c.n(readied.len());
        for r in readied {
            c.put(&(r.who, r.action, r.target, r.on, r.by, r.keep));
        }
        c.put(holding);
        c.n(deferred.len());
        for d in deferred {
            c.put(&(d.who, d.action, d.target));
            d.ctx.canon(c);
        }
        c.n(ongoing.len());
        for o in ongoing {
            c.put(&(o.who, o.action, o.left));
            o.ctx.canon(c);
        }
        c.n(granted.len());
        for g in granted {
            c.put(&(g.who, &g.kept, g.moves_left, g.actions_left));
        }
    }

    /// Becomes a copy of `other`, in the allocations it has.
    pub fn copy_from(&mut self, other: &Pending<'r>) {
        // Destructured whole, so that a field added later cannot be forgotten here.
        let Pending {
            changed,
            immediate,
            staging,
            staged,
            conditions,
            cancelled,
            redirected,
            retarget,
            chain_depth,
            reaction_depth,
            readied,
            holding,
            deferred,
            ongoing,
            granted,
        } = other;
        self.changed.clone_from(changed);
        self.immediate.clone_from(immediate);
        self.staging = *staging;
        self.staged.clone_from(staged);
        self.conditions.clone_from(conditions);
        self.cancelled = *cancelled;
        self.redirected = *redirected;
        self.retarget = *retarget;
        self.chain_depth = *chain_depth;
        self.reaction_depth = *reaction_depth;
        self.readied.clone_from(readied);
        self.holding.clone_from(holding);
        self.deferred.clone_from(deferred);
        self.ongoing.clone_from(ongoing);
        self.granted.clone_from(granted);
    }
}
