//! Sets of items and their piles: `items`, `pile`, `draw` and `move ... from PILE to PILE`.

use super::{kids, Builder, Rule, P, R};
use crate::source::Span;
use crate::syntax::ast::{Decl, Ident, ItemKindDecl, ItemSet, PileDecl, PilePick, PileRef, Stmt};
use std::iter::Peekable;

impl Builder {
    /// `items NAME ["Label"] { KIND [xN] [= VALUE], ... }` (its keyword already taken).
    pub(super) fn items_decl<'i>(&self, mut it: Peekable<impl Iterator<Item = P<'i>>>, p: &P<'i>) -> R<Decl> {
        let name = self.ident(&self.next(&mut it, p)?);
        let label = self.opt_string(&mut it);
        let mut kinds = Vec::new();
        for k in it {
            let mut ki = kids(&k);
            let name = self.ident(&self.next(&mut ki, &k)?);
            let (mut times, mut value) = (None, None);
            for part in ki {
                match part.as_rule() {
                    Rule::item_value => value = Some(self.item_value(&part)),
                    _ => times = Some(self.ident(&part)),
                }
            }
            kinds.push(ItemKindDecl { name, times, value });
        }
        Ok(Decl::Items(Box::new(ItemSet { name, label, kinds })))
    }

    /// `pile NAME ["Label"] of SET [{ starts full; shared | per side }]` (its keyword already taken).
    pub(super) fn pile_decl<'i>(&self, mut it: Peekable<impl Iterator<Item = P<'i>>>, p: &P<'i>) -> R<Decl> {
        let name = self.ident(&self.next(&mut it, p)?);
        let label = self.opt_string(&mut it);
        it.next(); // `of`
        let of = self.ident(&self.next(&mut it, p)?);
        let (mut full, mut shared, mut per_side) = (false, None, None);
        if let Some(body) = it.next() {
            for clause in kids(&body) {
                match clause.as_rule() {
                    Rule::shared_clause => shared = Some(self.span(&clause)),
                    Rule::per_side_clause => per_side = Some(self.span(&clause)),
                    _ => full = true,
                }
            }
        }
        Ok(Decl::Pile(Box::new(PileDecl { name, label, of, full, shared, per_side })))
    }

    /// `draw N from PILE to PILE` (its keyword already taken).
    pub(super) fn draw_stmt<'i>(
        &self,
        mut it: Peekable<impl Iterator<Item = P<'i>>>,
        p: &P<'i>,
        span: Span,
    ) -> R<Stmt> {
        let count = self.expr(self.next(&mut it, p)?)?;
        it.next(); // `from`
        let from = self.pile_ref(&self.next(&mut it, p)?)?;
        it.next(); // `to`
        let to = self.pile_ref(&self.next(&mut it, p)?)?;
        Ok(Stmt::Draw { count, from, to, span })
    }

    /// `move KIND|random [N]|all|highest|lowest from PILE to PILE` (its keyword already taken).
    pub(super) fn pile_move_stmt<'i>(
        &self,
        mut it: Peekable<impl Iterator<Item = P<'i>>>,
        p: &P<'i>,
        span: Span,
    ) -> R<Stmt> {
        let pick_pair = self.next(&mut it, p)?;
        let mut pk = kids(&pick_pair);
        let first = self.next(&mut pk, &pick_pair)?;
        let pick = match first.as_rule() {
            Rule::kw_all => PilePick::All,
            Rule::kw_highest => PilePick::Extreme(true),
            Rule::kw_lowest => PilePick::Extreme(false),
            Rule::kw_random => match pk.next() {
                Some(n) => PilePick::Random(Some(self.expr(n)?)),
                None => PilePick::Random(None),
            },
            _ => PilePick::Kind(self.ident(&first)),
        };
        it.next(); // `from`
        let from = self.pile_ref(&self.next(&mut it, p)?)?;
        it.next(); // `to`
        let to = self.pile_ref(&self.next(&mut it, p)?)?;
        Ok(Stmt::MoveItems { pick, from, to, span })
    }

    /// `2` or `-1` (the sign may stand apart from the digits), as one name for the checker to read.
    fn item_value(&self, p: &P) -> Ident {
        let mut value = self.ident(p);
        value.name = kids(p).map(|x| x.as_str().trim()).collect::<String>().into();
        value
    }

    fn pile_ref(&self, p: &P) -> R<PileRef> {
        let mut names = kids(p);
        let first = self.ident(&self.next(&mut names, p)?);
        Ok(match names.next() {
            Some(pile) => PileRef { who: Some(first), pile: self.ident(&pile) },
            None => PileRef { who: None, pile: first },
        })
    }
}
