//! An axum JSON service, one route behind tower-http's `TimeoutLayer`, driven by a reqwest
//! client that keeps its connection alive across requests, and stopped by graceful shutdown
//! on a `CancellationToken` while a request is in flight.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use compat_tests::{assert_on_runtime, bounded, note_thread};
use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use tokio::sync::{oneshot, Mutex, Notify};
use tokio_util::sync::CancellationToken;
use tower_http::timeout::TimeoutLayer;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Todo {
    id: u64,
    title: String,
    done: bool,
}

#[derive(Debug, Deserialize, Serialize)]
struct NewTodo {
    title: String,
}

#[derive(Default)]
struct AppState {
    todos: Mutex<Vec<Todo>>,
    /// Requests seen by the JSON handlers per peer address, that is per client connection.
    peers: Mutex<HashMap<SocketAddr, usize>>,
    /// Woken when `/held` has begun.
    held_entered: Notify,
    /// Lets `/held` answer.
    held_release: Notify,
}

async fn create(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Json(new): Json<NewTodo>,
) -> (StatusCode, Json<Todo>) {
    note_thread();
    *state.peers.lock().await.entry(peer).or_default() += 1;
    let mut todos = state.todos.lock().await;
    let todo = Todo {
        id: todos.len() as u64 + 1,
        title: new.title,
        done: false,
    };
    todos.push(todo.clone());
    (StatusCode::CREATED, Json(todo))
}

async fn list(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
) -> Json<Vec<Todo>> {
    note_thread();
    *state.peers.lock().await.entry(peer).or_default() += 1;
    Json(state.todos.lock().await.clone())
}

async fn finish(
    State(state): State<Arc<AppState>>,
    Path(id): Path<u64>,
) -> Result<Json<Todo>, StatusCode> {
    note_thread();
    let mut todos = state.todos.lock().await;
    let todo = todos
        .iter_mut()
        .find(|t| t.id == id)
        .ok_or(StatusCode::NOT_FOUND)?;
    todo.done = true;
    Ok(Json(todo.clone()))
}

/// Sleeps past the timeout layer's limit; the layer answers 408 instead.
async fn slow() -> &'static str {
    note_thread();
    tokio::time::sleep(Duration::from_secs(30)).await;
    "too late"
}

fn app(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/todos", post(create).get(list))
        .route("/todos/{id}/done", post(finish))
        // The timeout guards the route that needs it, so the other requests carry no deadline.
        .route(
            "/slow",
            get(slow).layer(TimeoutLayer::with_status_code(
                StatusCode::REQUEST_TIMEOUT,
                Duration::from_millis(300),
            )),
        )
        .route(
            "/held",
            get(|State(state): State<Arc<AppState>>| async move {
                note_thread();
                state.held_entered.notify_one();
                state.held_release.notified().await;
                "held to the end"
            }),
        )
        .with_state(state)
}

struct Server {
    base: String,
    state: Arc<AppState>,
    shutdown: CancellationToken,
    done: oneshot::Receiver<std::io::Result<()>>,
}

async fn start() -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let state = Arc::new(AppState::default());
    let shutdown = CancellationToken::new();
    let (tx, done) = oneshot::channel();
    let make = app(state.clone()).into_make_service_with_connect_info::<SocketAddr>();
    let token = shutdown.clone();
    tokio::spawn(async move {
        let result = axum::serve(listener, make)
            .with_graceful_shutdown(async move { token.cancelled().await })
            .await;
        let _ = tx.send(result);
    });
    Server {
        base,
        state,
        shutdown,
        done,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_keep_alive_timeout_and_graceful_shutdown() {
    bounded("axum + reqwest", async {
        let server = start().await;
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .build()
            .unwrap();

        for title in ["write tests", "run them", "read the results"] {
            let resp = client
                .post(format!("{}/todos", server.base))
                .json(&NewTodo {
                    title: title.into(),
                })
                .send()
                .await
                .unwrap();
            assert_eq!(resp.status(), reqwest::StatusCode::CREATED);
            let todo: Todo = resp.json().await.unwrap();
            assert_eq!(todo.title, title);
            assert!(!todo.done);
        }

        let done: Todo = client
            .post(format!("{}/todos/2/done", server.base))
            .send()
            .await
            .unwrap()
            .error_for_status()
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            done,
            Todo {
                id: 2,
                title: "run them".into(),
                done: true
            }
        );

        let missing = client
            .post(format!("{}/todos/9/done", server.base))
            .send()
            .await
            .unwrap();
        assert_eq!(missing.status(), reqwest::StatusCode::NOT_FOUND);

        let todos: Vec<Todo> = client
            .get(format!("{}/todos", server.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(todos.len(), 3);
        assert_eq!(todos.iter().filter(|t| t.done).count(), 1);
        assert_eq!(server.state.todos.lock().await.len(), 3);

        // Four JSON requests in sequence on one client. reqwest's pool hands each request an
        // idle connection or a new one, whichever is ready first, so the number of
        // connections is not fixed; keep-alive shows as one connection carrying several.
        let peers = server.state.peers.lock().await.clone();
        assert_eq!(peers.values().sum::<usize>(), 4);
        assert!(
            peers.values().any(|&n| n >= 2),
            "keep-alive never reused a connection: {peers:?}"
        );

        let slow = client
            .get(format!("{}/slow", server.base))
            .send()
            .await
            .unwrap();
        assert_eq!(slow.status(), reqwest::StatusCode::REQUEST_TIMEOUT);

        // Graceful shutdown: a request in flight when the token fires still gets its answer,
        // then the server's future completes. `/held` answers only once released, after the
        // token has fired.
        let held = tokio::spawn({
            let client = client.clone();
            let url = format!("{}/held", server.base);
            async move { client.get(url).send().await?.text().await }
        });
        server.state.held_entered.notified().await;
        server.shutdown.cancel();
        server.state.held_release.notify_one();
        assert_eq!(held.await.unwrap().unwrap(), "held to the end");
        drop(client);
        server
            .done
            .await
            .expect("server task dropped")
            .expect("serve failed");

        assert_on_runtime().await;
    })
    .await;
}
