//! Sets of items and their piles: `items`, `pile`, `draw`, `move ... from PILE to PILE`,
//! `PILE has KIND` and `count(PILE[, KIND])`. Sets and piles are lowered before anything that
//! names them; a pile is read by its name (`hand`) or a participant's (`target.hand`).

use super::expr::{Ty, ENEMY_SIDE};
use super::lower::{Ctx, Lowerer};
use super::merge::Entry;
use super::NameKind;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{self, Expr, PileAt, PileId};
use crate::source::Span;
use crate::syntax::ast::{self, Decl, ExprKind};

use crate::ir::MAX_OF_A_KIND;

pub(super) mod known;

impl Lowerer<'_> {
    /// Lowers every `items` and `pile` into `r`, before the rules that name them.
    pub(super) fn lower_piles(&mut self, entries: &[Entry], r: &mut ir::Ruleset) {
        for entry in entries {
            if let Decl::Items(set) = &entry.item.decl {
                let set = self.item_set(set);
                self.piles.sets.push((set.name.clone(), set.kinds.iter().map(|k| k.name.clone()).collect()));
                self.piles.numbered.push(set.kinds.iter().any(|k| k.value.is_some()));
                r.item_sets.push(set);
            }
        }
        for entry in entries {
            if let Decl::Pile(p) = &entry.item.decl {
                let set = match self.piles.sets.iter().position(|(n, _)| *n == p.of.name) {
                    Some(i) => {
                        self.read(p.of.span, NameKind::Items);
                        i
                    }
                    None => {
                        let d = Diagnostic::error(
                            Code::UnknownPile,
                            p.of.span,
                            format!("no set of items named `{}`", p.of.name),
                        )
                        .label("unknown set of items")
                        .suggest(&p.of.name, self.piles.sets.iter().map(|(n, _)| n.as_str()))
                        .or_help(format!("declare it: `items {} {{ a, b x2 }}`", p.of.name));
                        self.error(d);
                        0
                    }
                };
                self.piles.piles.push((p.name.name.to_string(), set));
                let shared = p.shared.is_some();
                // One pile for everyone, or one for each side: not both.
                if let (true, Some(span)) = (shared, p.per_side) {
                    self.misplaced(
                        span,
                        "a pile is either `shared` (one pile for the whole encounter) or `per side` (one pile for each side), not both",
                    );
                }
                r.piles.push(ir::Pile {
                    name: p.name.name.to_string(),
                    label: p.label.clone(),
                    set: ir::ItemSetId(set as u32),
                    full: p.full,
                    shared,
                    per_side: p.per_side.is_some() && !shared,
                });
                self.piles.shared.push(shared);
                self.piles.per_side.push(p.per_side.is_some() && !shared);
                let held = ir::start_items(&r.piles, &r.item_sets);
                if p.full && held > ir::MAX_START_ITEMS {
                    self.error(
                        Diagnostic::error(
                            Code::NumberTooLarge,
                            p.name.span,
                            format!("the piles that start full hold {held} items, more than {}", ir::MAX_START_ITEMS),
                        )
                        .label("this pile starts full")
                        .help(format!(
                            "a participant's piles start with at most {} items in all: hold fewer of each kind, or \
                             start this pile empty",
                            ir::MAX_START_ITEMS
                        )),
                    );
                    // Counted once: the piles after it are measured without it.
                    if let Some(last) = r.piles.last_mut() {
                        last.full = false;
                    }
                }
            }
        }
    }

    fn item_set(&mut self, set: &ast::ItemSet) -> ir::ItemSet {
        let mut kinds: Vec<ir::ItemKind> = Vec::new();
        for (i, kind) in set.kinds.iter().enumerate() {
            if let Some(first) = set.kinds[..i].iter().find(|k| k.name.name == kind.name.name) {
                self.twice(
                    format!("`{}` is listed twice in `{}`", kind.name.name, set.name.name),
                    kind.name.span,
                    first.name.span,
                    Some("give a kind more than once with `xN`: `strike x2`"),
                );
                continue;
            }
            let count = match &kind.times {
                None => 1,
                Some(t) => match t.name.get(1..).and_then(|n| n.parse::<u32>().ok()).filter(|n| *n <= MAX_OF_A_KIND) {
                    Some(n) => n,
                    None => {
                        self.error(
                            Diagnostic::error(Code::NumberTooLarge, t.span, "too many of one kind")
                                .label(format!("at most {MAX_OF_A_KIND}"))
                                .help(format!("a set holds up to {MAX_OF_A_KIND} of each kind")),
                        );
                        1
                    }
                },
            };
            let value = kind.value.as_ref().map(|v| self.item_value(v));
            kinds.push(ir::ItemKind { name: kind.name.name.to_string(), count, value });
        }
        let numbered = set.kinds.iter().filter(|k| k.value.is_some()).count();
        if numbered != 0 && numbered != set.kinds.len() {
            let (with, without): (Vec<_>, Vec<_>) = set.kinds.iter().partition(|k| k.value.is_some());
            if let (Some(shown), Some(bare)) = (with.first(), without.first()) {
                self.error(
                    Diagnostic::error(
                        Code::UnnumberedItem,
                        bare.name.span,
                        format!("`{}` has no number, but other kinds of `{}` do", bare.name.name, set.name.name),
                    )
                    .label("no number")
                    .with_secondary(shown.name.span, "this kind has one")
                    .help(format!("give every kind of a set a number, or none: `{} = 0`", bare.name.name)),
                );
            }
            for k in &mut kinds {
                k.value.get_or_insert(0);
            }
        }
        ir::ItemSet { name: set.name.name.to_string(), label: set.label.clone(), kinds }
    }

    /// The number of a kind of item, `= 2` or `= -1`, within [`ir::MAX_ITEM_VALUE`] either way.
    fn item_value(&mut self, v: &ast::Ident) -> i64 {
        match v.name.parse::<i64>().ok().filter(|n| n.abs() <= ir::MAX_ITEM_VALUE) {
            Some(n) => n,
            None => {
                self.error(
                    Diagnostic::error(Code::NumberTooLarge, v.span, "this number is too large for an item")
                        .label(format!("at most {} either way", ir::MAX_ITEM_VALUE))
                        .help("an item's number is what `value`, `highest` and `lowest` read: keep it small"),
                );
                0
            }
        }
    }

    /// That the pile's set gives its kinds numbers, for what reads them (`what`, as written);
    /// an error otherwise.
    fn numbered(&mut self, pile: PileId, what: &str, span: Span) {
        let Some(&(ref pile_name, set)) = self.piles.piles.get(pile.index()) else { return };
        if self.piles.numbered.get(set).copied().unwrap_or(true) {
            return;
        }
        let (set_name, kinds) = self.piles.sets.get(set).cloned().unwrap_or_default();
        let example: Vec<String> = kinds.iter().take(3).zip(1..).map(|(k, n)| format!("{k} = {n}")).collect();
        let d = Diagnostic::error(
            Code::UnnumberedItem,
            span,
            format!("`{what}` reads the numbers of `{pile_name}`'s items, but `{set_name}` gives its kinds none"),
        )
        .label("no numbers to read")
        .help(format!("give each kind of `{set_name}` a number: `items {set_name} {{ {} }}`", example.join(", ")));
        self.error(d);
    }

    /// A pile as written in a draw or move: `hand` (the owner's) or `WHO.hand`.
    fn pile_ref(&mut self, r: &ast::PileRef, ctx: Ctx) -> PileAt {
        let pile = self.pile_named(&r.pile);
        let who = self.pile_owner(r.who.as_ref(), &r.pile, pile, ctx);
        PileAt { who, pile }
    }

    /// Whose pile `WHO.NAME` is: `self` without a `WHO`; `enemy_side` only for a pile kept `per
    /// side` (the other side's), an error otherwise; a warning for a `shared` pile named as
    /// someone's.
    fn pile_owner(&mut self, who: Option<&ast::Ident>, name: &ast::Ident, pile: PileId, ctx: Ctx) -> ir::Who {
        let Some(w) = who else { return ir::Who::Owner };
        if w.name != ENEMY_SIDE {
            self.whose_shared(who, name, pile);
            return self.who_word(w, ctx);
        }
        self.option_word(w);
        if self.piles.per_side.get(pile.index()).copied().unwrap_or(false) {
            return ir::Who::EnemySide;
        }
        let d = Diagnostic::error(
            Code::NotSidePool,
            name.span,
            format!("`{}` is each participant's own (or `shared`), not a pile a side keeps", name.name),
        )
        .label("not a pile kept per side")
        .help(format!("declare it `pile {} of SET {{ per side }}` to keep one pile for each side", name.name));
        self.error(d);
        ir::Who::Owner
    }

    /// `target.deck` of a `shared` pile: a warning, as it is the one pile whoever is named.
    fn whose_shared(&mut self, who: Option<&ast::Ident>, name: &ast::Ident, pile: PileId) {
        let Some(who) = who else { return };
        if !self.piles.shared.get(pile.index()).copied().unwrap_or(false) {
            return;
        }
        let span = who.span.to(name.span);
        self.error(
            Diagnostic::warning(
                Code::SharedPileOwner,
                span,
                format!("`{}` is shared: `{}.{}` is the same pile as `{}`", name.name, who.name, name.name, name.name),
            )
            .label("one pile for the whole encounter")
            .help(format!(
                "write `{}`; to give each participant its own, drop `shared` from `pile {}`",
                name.name, name.name
            )),
        );
    }

    fn pile_named(&mut self, name: &ast::Ident) -> PileId {
        match self.piles.pile(&name.name) {
            Some(i) => {
                self.read(name.span, NameKind::Pile);
                PileId(i as u32)
            }
            None => {
                let d = Diagnostic::error(Code::UnknownPile, name.span, format!("no pile named `{}`", name.name))
                    .label("unknown pile")
                    .suggest(&name.name, self.piles.piles.iter().map(|(n, _)| n.as_str()))
                    .or_help(format!("declare it: `pile {} of SET`", name.name));
                self.error(d);
                PileId(0)
            }
        }
    }

    /// The kind of that name in a pile's set of items without numbers, if it lists one.
    fn kind_named(&self, pile: PileId, name: &str) -> Option<u32> {
        let &(_, set) = self.piles.piles.get(pile.index())?;
        if self.piles.numbered.get(set).copied().unwrap_or(true) {
            return None;
        }
        self.piles.sets.get(set)?.1.iter().position(|k| k == name).map(|k| k as u32)
    }

    /// A kind of the pile's set; an error naming the set when it has no such kind.
    fn kind_in(&mut self, pile: PileId, kind: &ast::Ident) -> u32 {
        let Some(&(_, set)) = self.piles.piles.get(pile.index()) else { return 0 };
        let Some((set_name, kinds)) = self.piles.sets.get(set) else { return 0 };
        if let Some(i) = kinds.iter().position(|k| *k == kind.name) {
            self.read(kind.span, NameKind::Item);
            return i as u32;
        }
        let d = Diagnostic::error(Code::UnknownItem, kind.span, format!("`{set_name}` has no item `{}`", kind.name))
            .label("not a kind of this pile's items")
            .suggest(&kind.name, kinds.iter().map(String::as_str))
            .or_help(format!("the kinds of `{set_name}` are: {}", kinds.join(", ")));
        self.error(d);
        0
    }

    /// Whether the pile's set of items is the same as another's: items move only between piles
    /// of one set.
    fn same_set(&mut self, from: PileAt, to: PileAt, span: Span) {
        let set = |p: PileAt| self.piles.piles.get(p.pile.index()).map(|(_, s)| *s);
        if let (Some(a), Some(b)) = (set(from), set(to)) {
            if a != b {
                let (sa, sb) = (self.piles.sets[a].0.clone(), self.piles.sets[b].0.clone());
                self.error(
                    Diagnostic::error(Code::UnknownPile, span, "items move only between piles of one set")
                        .label(format!("from a pile of `{sa}` to a pile of `{sb}`"))
                        .help("both piles must be declared `of` the same set of items"),
                );
            }
        }
    }

    /// `draw N from A to B`.
    pub(super) fn draw(
        &mut self,
        count: &ast::Expr,
        from: &ast::PileRef,
        to: &ast::PileRef,
        span: Span,
        ctx: Ctx,
    ) -> ir::Effect {
        let count = self.int(count, ctx);
        let (from, to) = (self.pile_ref(from, ctx), self.pile_ref(to, ctx));
        self.same_set(from, to, span);
        ir::Effect::Pile(ir::PileEffect::Draw { count, from, to })
    }

    /// `move KIND|random [N]|all|highest|lowest from A to B`.
    pub(super) fn move_items(
        &mut self,
        pick: &ast::PilePick,
        from: &ast::PileRef,
        to: &ast::PileRef,
        span: Span,
        ctx: Ctx,
    ) -> ir::Effect {
        let from_span = from.pile.span;
        let (from, to) = (self.pile_ref(from, ctx), self.pile_ref(to, ctx));
        self.same_set(from, to, span);
        let pick = match pick {
            ast::PilePick::All => ir::Pick::All,
            ast::PilePick::Random(n) => ir::Pick::Random(match n {
                Some(n) => self.int(n, ctx),
                None => Expr::Int(1),
            }),
            ast::PilePick::Kind(kind) => ir::Pick::Kind(self.kind_in(from.pile, kind)),
            // A set without numbers that lists a kind of this name (written before `highest`
            // was a word here) still moves that kind.
            ast::PilePick::Extreme(highest) => {
                match self.kind_named(from.pile, if *highest { "highest" } else { "lowest" }) {
                    Some(k) => ir::Pick::Kind(k),
                    None => {
                        let word = if *highest { "move highest" } else { "move lowest" };
                        self.numbered(from.pile, word, from_span);
                        ir::Pick::Extreme(*highest)
                    }
                }
            }
        };
        ir::Effect::Pile(ir::PileEffect::Move { pick, from, to })
    }

    /// The pile an expression names, when it names one: `hand` or `WHO.hand`. A name that is
    /// a pile's is a pile here even when a stat or pool shares it: `has` and `count` never read
    /// those.
    fn pile_of(&mut self, e: &ast::Expr, ctx: Ctx) -> Option<PileAt> {
        let parts: &[ast::Ident] = match &e.kind {
            ExprKind::Name(n) => std::slice::from_ref(n),
            ExprKind::Path(p) => &p.parts,
            _ => return None,
        };
        let (who, pile) = match parts {
            [pile] => (None, pile),
            [who, pile] => (Some(who), pile),
            _ => return None,
        };
        self.piles.pile(&pile.name)?;
        let at = self.pile_named(pile);
        Some(PileAt { who: self.pile_owner(who, pile, at, ctx), pile: at })
    }

    /// `PILE has KIND`, or `None` when the left side is not a pile (a participant's condition).
    pub(super) fn pile_has(&mut self, who: &ast::Expr, kind: &ast::Ident, ctx: Ctx) -> Option<(Expr, Ty)> {
        let at = self.pile_of(who, ctx)?;
        let kind = self.kind_in(at.pile, kind);
        Some((Expr::PileHas(at, kind), Ty::Bool))
    }

    /// `value(PILE)`, `highest(PILE)`, `lowest(PILE)` (`func`, one of them): what the numbers of
    /// its items come to. A value that is not a pile is an error.
    pub(super) fn pile_value(&mut self, e: &ast::Expr, func: &str, args: &[ast::Expr], ctx: Ctx) -> (Expr, Ty) {
        let read = match func {
            "highest" => ir::PileRead::Highest,
            "lowest" => ir::PileRead::Lowest,
            _ => ir::PileRead::Sum,
        };
        let at = match args {
            [pile] => self.pile_of(pile, ctx),
            _ => None,
        };
        match at {
            Some(at) => {
                self.numbered(at.pile, &format!("{func}(...)"), e.span);
                (Expr::PileValue(at, read), Ty::Int)
            }
            None => {
                let span = args.first().map_or(e.span, |a| a.span);
                let d = Diagnostic::error(Code::UnknownPile, span, format!("`{func}` reads one pile"))
                    .label(if args.len() == 1 { "not a pile" } else { "expected one pile" })
                    .suggest(
                        args.first().and_then(|a| a.kind.single_name()).map_or("", |n| n.name.as_str()),
                        self.piles.piles.iter().map(|(n, _)| n.as_str()),
                    )
                    .or_help(format!(
                        "`{func}(hand)` or `{func}(target.hand)`: a pile of a set whose kinds have numbers"
                    ));
                self.error(d);
                (Expr::Int(0), Ty::Unknown)
            }
        }
    }

    /// `count(PILE)`, `count(PILE, KIND)`, or `None` when the first value is not a pile.
    pub(super) fn pile_count(&mut self, args: &[ast::Expr], ctx: Ctx) -> Option<(Expr, Ty)> {
        let at = self.pile_of(args.first()?, ctx)?;
        match args {
            [_] => Some((Expr::PileCount(at, None), Ty::Int)),
            [_, kind] => {
                let k = match kind.kind.single_name() {
                    Some(name) => self.kind_in(at.pile, name),
                    None => {
                        self.error(
                            Diagnostic::error(Code::UnknownItem, kind.span, "expected a kind of item here")
                                .label("not a kind of item")
                                .help("`count(hand, strike)` counts the strikes in the hand"),
                        );
                        0
                    }
                };
                Some((Expr::PileCount(at, Some(k)), Ty::Int))
            }
            _ => None,
        }
    }
}
