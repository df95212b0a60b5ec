//! One of N runs side by side: a job's shard takes a fixed share of its tasks, a proof's shard
//! writes a log of its own and works the leaves no other shard's note names.

use std::str::FromStr;

/// One of `count` runs side by side. Of a job's tasks, shard `index` takes every one whose
/// number (from 0, in [`crate::jobs::Job::tasks`] order) leaves remainder `index - 1` when
/// divided by `count`: dealt round-robin, the openings of one big item spread over all shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// From 1.
    pub index: usize,
    /// How many shards there are.
    pub count: usize,
}

impl Shard {
    /// Whether task number `task` (from 0) is this shard's.
    pub fn takes(&self, task: usize) -> bool {
        task % self.count == self.index - 1
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `I/N`, e.g. `2/8`, with 1 <= I <= N.
    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("'{text}' is not a shard I/N with 1 <= I <= N, e.g. 2/8");
        let (index, count) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) =
            (index.trim().parse().map_err(|_| bad())?, count.trim().parse().map_err(|_| bad())?);
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_deal_every_task_to_exactly_one_shard() {
        let shards: Vec<Shard> = (1..=3).map(|i| format!("{i}/3").parse().unwrap()).collect();
        for task in 0..20 {
            assert_eq!(shards.iter().filter(|s| s.takes(task)).count(), 1);
        }
        for bad in ["0/3", "4/3", "1", "a/b", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
