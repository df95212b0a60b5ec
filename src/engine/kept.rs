//! What a long-running front end (the service) keeps between requests: for each rule set (as
//! values see it) and board size, the database, opened once, and one transposition table that
//! every search of that kind shares.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::board::Position;
use crate::database::{Database, DbError, Layout};
use crate::engine::Prepared;
use crate::rules::Rules;
use crate::search::table::Table;
use crate::search::{SearchError, SearchOptions};

/// The database (if there is one) and the table of one rule set and board size.
#[derive(Clone)]
pub struct Kept {
    /// The database, limited to the seeds asked for.
    pub database: Option<Arc<Database>>,
    /// The table its searches share.
    pub table: Arc<Table>,
}

impl Kept {
    /// Whether the database holds `position`'s value (a search over it only probes).
    pub fn holds(&self, position: &Position) -> bool {
        self.database.as_ref().is_some_and(|db| position.seeds_on_board() as usize <= db.max_seeds())
    }
}

/// The [`Kept`] database and table of every rule set and board size asked for so far.
pub struct KeptEngines {
    root: PathBuf,
    max_seeds: Option<usize>,
    layout: Layout,
    table_bytes: usize,
    /// Kinds kept at once: their tables together stay within the memory allowed.
    max_kept: usize,
    kept: Mutex<HashMap<(Rules, usize), Kept>>,
}

impl KeptEngines {
    /// Databases under `root` (used up to `max_seeds` seeds when given), tables of `table_bytes`,
    /// all of them together within `tables_bytes` (at least one table is kept).
    pub fn new(root: PathBuf, max_seeds: Option<usize>, table_bytes: usize, tables_bytes: usize) -> KeptEngines {
        let max_kept = (tables_bytes / table_bytes.max(1)).max(1);
        KeptEngines { root, max_seeds, layout: Layout::Auto, table_bytes, max_kept, kept: Mutex::new(HashMap::new()) }
    }

    /// The same, holding database layers in `layout`.
    pub fn with_layout(self, layout: Layout) -> KeptEngines {
        KeptEngines { layout, ..self }
    }

    /// Where the databases are.
    pub fn root(&self) -> &std::path::Path {
        &self.root
    }

    /// The database and table for `rules` and `houses`: made on first use, opening the database
    /// if there is one.
    pub fn get(&self, rules: &Rules, houses: usize) -> Result<Kept, SearchError> {
        let key = (rules.for_values(), houses);
        let mut kept = self.lock();
        if let Some(found) = kept.get(&key) {
            return Ok(found.clone());
        }
        let database = match Database::open(&self.root, rules, houses) {
            Ok(db) => Some(Arc::new(self.limit(db))),
            Err(DbError::NoDatabase { .. }) => None,
            Err(err) => return Err(err.into()),
        };
        // The rule overrides times the board sizes could ask for hundreds of tables, so the ones
        // without a database (cheap to make again) are let go first.
        if kept.len() >= self.max_kept {
            kept.retain(|_, found| found.database.is_some());
            if kept.len() >= self.max_kept {
                kept.clear();
            }
        }
        let found = Kept { database, table: Arc::new(Table::for_search(self.table_bytes)?) };
        kept.insert(key, found.clone());
        Ok(found)
    }

    /// Opens and reads every database under the root now (checksums checked), telling
    /// `loading` about each before it is read.
    pub fn preload(&self, mut loading: impl FnMut(&Database)) -> Result<(), SearchError> {
        let dirs = match Database::list(&self.root) {
            Ok(dirs) => dirs,
            Err(DbError::NoDatabase { .. }) => Vec::new(),
            Err(err) => return Err(err.into()),
        };
        for dir in dirs {
            let db = self.limit(Database::open_dir(&dir)?);
            loading(&db);
            db.verify_checksums()?;
            let table = Arc::new(Table::for_search(self.table_bytes)?);
            self.lock().insert((*db.rules(), db.houses()), Kept { database: Some(Arc::new(db)), table });
        }
        Ok(())
    }

    /// Every database under the root (limited as the searches use them); unreadable ones left
    /// out.
    pub fn on_disk(&self) -> Vec<Database> {
        let dirs = Database::list(&self.root).unwrap_or_default();
        dirs.iter().filter_map(|dir| Database::open_dir(dir).ok()).map(|db| self.limit(db)).collect()
    }

    /// One-thread searches under `rules` over `kept`'s database and table, stopping at
    /// `deadline`.
    pub fn prepare(&self, rules: &Rules, kept: &Kept, deadline: Instant) -> Prepared {
        let options = SearchOptions { table_bytes: self.table_bytes, deadline: Some(deadline), threads: 1 };
        Prepared::sharing(*rules, kept.database.clone(), Arc::clone(&kept.table), options)
    }

    /// `db` as the searches use it: up to the seeds asked for, in the layout asked for.
    fn limit(&self, db: Database) -> Database {
        let db = match self.max_seeds {
            Some(seeds) if seeds < db.max_seeds() => db.limited_to(seeds),
            _ => db,
        };
        db.with_layout(self.layout)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(Rules, usize), Kept>> {
        self.kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;
    use crate::database::builder::{self, BuildOptions};
    use crate::engine::Quietly;

    #[test]
    fn one_database_and_table_per_kind_limited_as_asked() {
        let root = tempfile::tempdir().unwrap();
        let options = BuildOptions {
            max_seeds: 8,
            compress: true,
            reference_moves: false,
            layout: Layout::Packed,
            cyclic: Default::default(),
        };
        builder::build(root.path(), &Rules::STANDARD, 3, &options, &Quietly).unwrap();
        let engines = KeptEngines::new(root.path().to_path_buf(), Some(5), 1 << 20, 16 << 20);
        let first = engines.get(&Rules::STANDARD, 3).unwrap();
        assert_eq!(first.database.as_ref().map(|db| db.max_seeds()), Some(5), "limited to 5 seeds");
        // The pie rule does not change values: the same database and table serve it.
        let pie = Rules { pie: true, ..Rules::STANDARD };
        assert!(Arc::ptr_eq(&first.table, &engines.get(&pie, 3).unwrap().table));
        let without = engines.get(&Rules::STANDARD, 4).unwrap();
        assert!(without.database.is_none() && !Arc::ptr_eq(&first.table, &without.table));
        assert_eq!(engines.on_disk().iter().map(|db| (db.houses(), db.max_seeds())).collect::<Vec<_>>(), [(3, 5)]);
        // Room for 4 tables of 1 MiB: more kinds let the ones without a database go first.
        let small = KeptEngines::new(root.path().to_path_buf(), None, 1 << 20, 4 << 20);
        let with_database = small.get(&Rules::STANDARD, 3).unwrap();
        for houses in 4..=6 {
            for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE, Rules::BGA] {
                small.get(&rules, houses).unwrap();
                assert!(small.lock().len() <= 4, "within the memory allowed");
            }
        }
        let again = small.get(&Rules::STANDARD, 3).unwrap();
        assert!(Arc::ptr_eq(&with_database.table, &again.table), "the kind with a database was kept");
        let start = Position::start(3, 1).unwrap();
        let prepared = engines.prepare(&Rules::STANDARD, &first, Instant::now() + std::time::Duration::from_secs(60));
        let (value, _) = prepared.value(&start).unwrap();
        assert_eq!(value, crate::solve::Solver::new(Rules::STANDARD).unwrap().value(&start));
    }
}
