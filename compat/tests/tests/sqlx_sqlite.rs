//! sqlx on SQLite: a connection pool over a temporary database file, schema setup, a
//! transaction that commits and one that rolls back, and many queries at once through the
//! pool from spawned tasks.

use std::str::FromStr;

use compat_tests::{assert_on_runtime, bounded, note_thread};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};
use sqlx::{Row, SqlitePool};

fn db_path() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("compat-sqlx-{}.db", std::process::id()))
}

async fn pool(path: &std::path::Path) -> SqlitePool {
    let options = SqliteConnectOptions::from_str(&format!("sqlite://{}", path.display()))
        .unwrap()
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .busy_timeout(std::time::Duration::from_secs(10));
    SqlitePoolOptions::new()
        .max_connections(4)
        .connect_with(options)
        .await
        .expect("open the pool")
}

async fn balance(pool: &SqlitePool, name: &str) -> i64 {
    sqlx::query_scalar("SELECT balance FROM accounts WHERE name = ?")
        .bind(name)
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pool_transactions_and_concurrent_queries() {
    let path = db_path();
    bounded("sqlx sqlite", async {
        let _ = std::fs::remove_file(&path);
        let pool = pool(&path).await;

        sqlx::query(
            "CREATE TABLE accounts (name TEXT PRIMARY KEY, balance INTEGER NOT NULL CHECK (balance >= 0))",
        )
        .execute(&pool)
        .await
        .unwrap();
        for (name, balance) in [("alice", 100), ("bob", 50)] {
            sqlx::query("INSERT INTO accounts (name, balance) VALUES (?, ?)")
                .bind(name)
                .bind(balance)
                .execute(&pool)
                .await
                .unwrap();
        }

        // A transfer that commits.
        let mut tx = pool.begin().await.unwrap();
        sqlx::query("UPDATE accounts SET balance = balance - 30 WHERE name = 'alice'")
            .execute(&mut *tx)
            .await
            .unwrap();
        sqlx::query("UPDATE accounts SET balance = balance + 30 WHERE name = 'bob'")
            .execute(&mut *tx)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        assert_eq!(balance(&pool, "alice").await, 70);
        assert_eq!(balance(&pool, "bob").await, 80);

        // A transfer rolled back explicitly, after its first write was visible inside it.
        let mut tx = pool.begin().await.unwrap();
        sqlx::query("UPDATE accounts SET balance = balance + 1000 WHERE name = 'bob'")
            .execute(&mut *tx)
            .await
            .unwrap();
        let inside: i64 = sqlx::query_scalar("SELECT balance FROM accounts WHERE name = 'bob'")
            .fetch_one(&mut *tx)
            .await
            .unwrap();
        assert_eq!(inside, 1080);
        tx.rollback().await.unwrap();
        assert_eq!(balance(&pool, "bob").await, 80);

        // A transfer that violates the CHECK constraint and is dropped without commit.
        {
            let mut tx = pool.begin().await.unwrap();
            let overdraw = sqlx::query("UPDATE accounts SET balance = balance - 500 WHERE name = 'alice'")
                .execute(&mut *tx)
                .await;
            assert!(overdraw.is_err(), "CHECK constraint did not fire");
        }
        assert_eq!(balance(&pool, "alice").await, 70);

        // Concurrent queries: 32 tasks share the 4-connection pool.
        sqlx::query("CREATE TABLE events (id INTEGER PRIMARY KEY, task INTEGER NOT NULL)")
            .execute(&pool)
            .await
            .unwrap();
        let tasks: Vec<_> = (0..32)
            .map(|task| {
                let pool = pool.clone();
                tokio::spawn(async move {
                    note_thread();
                    sqlx::query("INSERT INTO events (task) VALUES (?)")
                        .bind(task)
                        .execute(&pool)
                        .await?;
                    let row = sqlx::query("SELECT COUNT(*) AS n FROM events WHERE task = ?")
                        .bind(task)
                        .fetch_one(&pool)
                        .await?;
                    Ok::<i64, sqlx::Error>(row.get("n"))
                })
            })
            .collect();
        for task in tasks {
            assert_eq!(task.await.unwrap().unwrap(), 1);
        }
        let total: i64 = sqlx::query_scalar("SELECT COUNT(DISTINCT task) FROM events")
            .fetch_one(&pool)
            .await
            .unwrap();
        assert_eq!(total, 32);
        assert!(pool.size() <= 4);

        pool.close().await;
        assert!(pool.is_closed());
        assert_on_runtime().await;
    })
    .await;
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}
