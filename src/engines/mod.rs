//! Matching engines that sit on the shared model and the engine-neutral vocabulary.
//!
//! [`space`] is the candidate-space core (filter → order → enumerate, as in Sun & Luo's study):
//! strong candidate filtering with candidate-edge tables, cost-chosen static orders, enumeration by
//! intersection with failing-set pruning and work-stealing parallel search. The host matcher
//! ([`crate::matcher`]) hands it every query it can answer exactly (anonymous relationships,
//! node-isomorphism or homomorphism, unary predicates) and keeps its factorised and triangle plans
//! for the shapes they win on.

pub mod space;
