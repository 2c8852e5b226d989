//! AMonG on OpenCL (PoCL in CI) equals the host A* on every pair tried: random small typed graphs
//! under every evaluation and insertion strategy, both heuristics, with and without R and S; the
//! paper's race mode returns the same similarity. Skips without an OpenCL platform.
#![cfg(feature = "opencl")]

use crate::common;

use common::semantic_graphs::{model, random_graph};
use common::Rng;
use gemp::similarity::among::{among_search, race, AmongOptions, EvalStrategy, InsertStrategy};
use gemp::similarity::astar::mapping_similarity;
use gemp::similarity::{search, Algorithm, Improvements, Problem, SearchOptions, SemanticGraph};
use serde_json::json;

#[test]
fn among_equals_host_astar_on_random_pairs() {
    let Some(gpu) = common::gpu("among_equals_host_astar_on_random_pairs") else {
        return;
    };
    let m = model();
    let mut rng = Rng(42);
    let strategies = [
        (EvalStrategy::One, InsertStrategy::One),
        (EvalStrategy::Two, InsertStrategy::Two),
        (EvalStrategy::Three, InsertStrategy::Two),
        (EvalStrategy::Three, InsertStrategy::One),
    ];
    for pair in 0..24 {
        let q = random_graph(&mut rng, "q", 5, 7, false);
        let c = random_graph(&mut rng, "c", 6, 8, false);
        let problem = Problem::new(&q, &c, &m).unwrap();
        let host = search(&problem, &SearchOptions::default())
            .unwrap()
            .done()
            .unwrap();
        let (eval, insert) = strategies[pair % strategies.len()];
        let (heuristic_iii, selection, reduction) = [
            (true, true, true),
            (true, false, false),
            (false, false, true),
        ][pair % 3];
        let options = AmongOptions {
            instances: [1, 4, 16][pair % 3],
            eval,
            insert,
            queue_capacity: 4096,
            heuristic_iii,
            selection,
            reduction,
            seed: pair as u64,
            ..AmongOptions::default()
        };
        let device = among_search(&gpu, &problem, &options)
            .unwrap()
            .done()
            .unwrap();
        assert!(
            (device.similarity - host.similarity).abs() < 1e-5,
            "pair {pair} ({options:?}): AMonG {} vs host {}",
            device.similarity,
            host.similarity
        );
        let again = mapping_similarity(&problem, &device.mapping).expect("a legal mapping");
        assert!((again - device.similarity).abs() < 1e-12);
        assert!(device.stats.expansions > 0 || q.size() == 0);
    }
}

#[test]
fn race_returns_the_optimum_and_a_full_queue_stops() {
    let Some(gpu) = common::gpu("race_returns_the_optimum_and_a_full_queue_is_an_error") else {
        return;
    };
    let m = model();
    let mut rng = Rng(9);
    let q = random_graph(&mut rng, "q", 5, 7, false);
    let c = random_graph(&mut rng, "c", 5, 7, false);
    let problem = Problem::new(&q, &c, &m).unwrap();
    let host_options = SearchOptions {
        algorithm: Algorithm::AStarII,
        improvements: Improvements::default(),
        ..Default::default()
    };
    let host = search(&problem, &host_options).unwrap().done().unwrap();
    let (outcome, _winner) = race(&gpu, &problem, &host_options, &AmongOptions::default()).unwrap();
    assert!((outcome.done().unwrap().similarity - host.similarity).abs() < 1e-5);
    // One instance with room for one solution overflows on any pair with a choice.
    let mut g = SemanticGraph::new("g");
    for i in 0..4 {
        g.add_node(format!("n{i}"), "A", json!({"v": i}));
    }
    let problem = Problem::new(&g, &g, &m).unwrap();
    let tiny = AmongOptions {
        instances: 1,
        queue_capacity: 1,
        ..AmongOptions::default()
    };
    let o = among_search(&gpu, &problem, &tiny).unwrap();
    assert!(
        matches!(
            o,
            gemp::similarity::Outcome::Stopped {
                reason: gemp::similarity::StopReason::QueueCapacity,
                ..
            }
        ),
        "{o:?}"
    );
}

#[test]
fn among_equals_host_astar_on_small_recipe_pairs() {
    let Some(gpu) = common::gpu("among_equals_host_astar_on_small_recipe_pairs") else {
        return;
    };
    use gemp::similarity::recipes::{generate_recipes, similarity_model};
    let m = similarity_model();
    let mut recipes = generate_recipes(40, 2020);
    recipes.sort_by_key(|g| g.size());
    // The three smallest recipes (30-odd elements), each against the others, query not larger.
    for qi in 0..3 {
        for ci in qi..3 {
            let problem = Problem::new(&recipes[qi], &recipes[ci], &m).unwrap();
            let host = search(
                &problem,
                &SearchOptions {
                    improvements: Improvements::ALL,
                    ..Default::default()
                },
            )
            .unwrap()
            .done()
            .unwrap();
            let options = AmongOptions {
                instances: 8,
                queue_capacity: 1 << 14,
                ..AmongOptions::default()
            };
            let device = among_search(&gpu, &problem, &options)
                .unwrap()
                .done()
                .unwrap();
            assert!(
                (device.similarity - host.similarity).abs() < 1e-5,
                "{} vs {}: AMonG {} vs host {}",
                recipes[qi].name,
                recipes[ci].name,
                device.similarity,
                host.similarity
            );
        }
    }
}
