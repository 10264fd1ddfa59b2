//! Customers, orders and stock in one table: a typed update that keeps an index true, an
//! update that creates a counter, an upsert, a versioned read–modify–write, a transaction
//! that creates an order and takes its stock (or does neither), and a batch that mixes facets.
//!
//! ```text
//! cargo run --example orders
//! ```
//!
//! It runs on the embedded engine unless `FACETEER_DYNAMODB_ENDPOINT` points it at another
//! server (see `examples/tasks.rs`).

use faceteer::{write::Conditional, Error, Facet, KeyPart, Table};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "CUSTOMER")]
#[serde(rename_all = "camelCase")]
struct Customer {
    #[pk(prefix = "#CUSTOMER")]
    #[sk(prefix = "#CUSTOMER")]
    customer_id: String,
    name: String,
    orders_placed: u32,
    loyalty_points: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, KeyPart, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum OrderStatus {
    Placed,
    Shipped,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "ORDER")]
#[serde(rename_all = "camelCase")]
struct Order {
    #[pk(prefix = "#CUSTOMER")]
    customer_id: String,
    #[sk(prefix = "#ORDER")]
    order_id: String,
    sku: String,
    quantity: u32,
    /// Orders by status, newest first: `Order::by_status(..)`.
    #[gsi(n = 1, alias = "Status", pk, prefix = "#STATUS")]
    status: OrderStatus,
    #[gsi(n = 1, sk, prefix = "#PLACED")]
    placed_at: String,
    history: Vec<String>,
    tracking: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "STOCK")]
#[serde(rename_all = "camelCase")]
struct Stock {
    #[pk(prefix = "#SKU")]
    #[sk(prefix = "#SKU")]
    sku: String,
    on_hand: u32,
    price_cents: u64,
    /// Checked and moved by every put and update: concurrent writers cannot lose changes.
    #[version]
    version: u64,
}

/// A singleton counter: one record per name, created by its first update.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "COUNTER")]
struct Counter {
    #[pk(prefix = "#COUNTER")]
    #[sk(prefix = "#COUNTER")]
    name: String,
    total: u64,
}

faceteer::table! {
    /// The shop's table.
    pub struct ShopTable { Customer, Order, Stock, Counter }
}

/// Place an order: create it and take its stock in one transaction, or do neither.
async fn place(table: &Table, order: &Order) -> faceteer::Result<()> {
    let s = Stock::fields();
    let c = Customer::fields();
    table
        .transact_write()
        .put(table.put(order).if_not_exists())
        .update(
            table
                .update(&Stock::key(&order.sku)?, s.on_hand.subtract(order.quantity))
                .when(s.on_hand.ge(order.quantity)),
        )
        .update(table.update(&Customer::key(&order.customer_id)?, c.orders_placed.add(1)))
        .await
}

fn order(id: &str, sku: &str, quantity: u32, placed_at: &str) -> Order {
    Order {
        customer_id: "ada".into(),
        order_id: id.into(),
        sku: sku.into(),
        quantity,
        status: OrderStatus::Placed,
        placed_at: placed_at.into(),
        history: vec![format!("placed at {placed_at}")],
        tracking: None,
    }
}

pub async fn run(table: &Table) -> Result<(), Box<dyn std::error::Error>> {
    // 1. A batch that mixes facets: the customer and the stock of two products.
    let report = table
        .write_batch()
        .put(&Customer {
            customer_id: "ada".into(),
            name: "Ada".into(),
            orders_placed: 0,
            loyalty_points: 0,
        })
        .await;
    assert!(report.is_complete());
    for (sku, on_hand) in [("kettle", 3), ("teapot", 1)] {
        table
            .put(&Stock {
                sku: sku.into(),
                on_hand,
                price_cents: 2_500,
                version: 0,
            })
            .await?;
    }
    println!("1. customer and stock stored");

    // 2. A transaction: the order is created and its stock taken together.
    place(table, &order("o-1", "kettle", 2, "2026-11-22T10:00:00Z")).await?;
    let kettle = table.get(&Stock::key("kettle")?).await?.expect("stored");
    println!(
        "2. order o-1 placed: {} kettles left (stock version {})",
        kettle.on_hand, kettle.version
    );

    // 3. Not enough stock: the transaction is canceled and says which step failed.
    match place(table, &order("o-2", "teapot", 2, "2026-11-22T10:05:00Z")).await {
        Err(Error::TransactionCanceled { canceled }) => {
            for c in &canceled {
                println!("3. order o-2 refused: {c}");
            }
        }
        other => return Err(format!("expected a cancellation, got {other:?}").into()),
    }
    assert_eq!(table.get(&Order::key("ada", "o-2")?).await?, None);

    // 4. A typed update: ship the order. `GSI1PK` is built from the status, so the update
    //    rebuilds it in the same request: the by-status index never goes stale.
    let o = Order::fields();
    let key = Order::key("ada", "o-1")?;
    let shipped: Order = table
        .update(
            &key,
            o.status.set(OrderStatus::Shipped)
                & o.tracking.set("TRACK-42".to_owned())
                & o.history.append(["shipped".to_owned()]),
        )
        .when(o.status.eq(OrderStatus::Placed))
        .returning_new()
        .await?;
    println!(
        "4. order o-1 is {:?}, tracking {:?}, history {:?}",
        shipped.status, shipped.tracking, shipped.history
    );
    let shipped_orders = table
        .query(Order::by_status(OrderStatus::Shipped).list())
        .await?;
    println!("   orders shipped (GSI1): {}", shipped_orders.records.len());

    //    Moving the order's placement time rebuilds `GSI1SK`; that key's partition, the
    //    status, is named unchanged: it rebuilds nothing, and is checked on the server.
    table
        .update(
            &key,
            o.placed_at.set("2026-11-22T09:59:00Z".to_owned())
                & o.status.unchanged(OrderStatus::Shipped),
        )
        .await?;
    let err = table
        .update(
            &key,
            o.placed_at.set("2026-11-22T09:58:00Z".to_owned())
                & o.status.unchanged(OrderStatus::Placed),
        )
        .await
        .unwrap_err();
    println!("   a stale status is refused: {err}");

    //    A failed condition can give back the record it saw, typed: no second read.
    let cancel = table
        .update(&key, o.status.set(OrderStatus::Cancelled))
        .when(o.status.eq(OrderStatus::Placed))
        .stored_on_failure()
        .await?;
    match cancel {
        Conditional::Failed {
            stored: Some(now), ..
        } => println!("   o-1 cannot be cancelled: it is {:?} already", now.status),
        other => return Err(format!("expected a refusal, got {other:?}").into()),
    }
    //    In a transaction, each canceled step carries the stored record too.
    if let Err(Error::TransactionCanceled { canceled }) =
        place(table, &order("o-3", "teapot", 9, "2026-11-22T10:06:00Z")).await
    {
        if let Some(stock) = canceled
            .iter()
            .find_map(|c| c.stored::<Stock>().ok().flatten())
        {
            println!("   o-3 refused: {} teapots on hand", stock.on_hand);
        }
    }

    // 5. An update that creates: the shop's order counter exists after its first update.
    let n = Counter::fields();
    let orders = Counter {
        name: "orders".into(),
        total: 0,
    };
    for _ in 0..3 {
        table
            .update(&Counter::key("orders")?, n.total.add(1))
            .or_create(&orders)
            .await?;
    }
    let counted = table.get(&Counter::key("orders")?).await?.expect("created");
    println!("5. orders counted: {}", counted.total);

    //    An upsert: write the customer as given, creating or merging, but keep the counts
    //    the shop has made for it.
    let c = Customer::fields();
    let ada: Customer = table
        .upsert(&Customer {
            customer_id: "ada".into(),
            name: "Ada Lovelace".into(),
            orders_placed: 0,
            loyalty_points: 0,
        })
        .keep(c.orders_placed)
        .keep(c.loyalty_points)
        .returning_new()
        .await?;
    println!(
        "   customer upserted: {} ({} order(s) kept)",
        ada.name, ada.orders_placed
    );

    // 6. A versioned read–modify–write: restock, retried if another writer got there first.
    let kettle = table
        .modify(&Stock::key("kettle")?, |s| s.on_hand += 10)
        .await?
        .expect("stored");
    println!(
        "6. kettles restocked: {} on hand (version {})",
        kettle.on_hand, kettle.version
    );
    // A stale copy cannot overwrite it.
    let stale = Stock {
        on_hand: 0,
        version: kettle.version - 1,
        ..kettle.clone()
    };
    let err = table.put(&stale).await.unwrap_err();
    println!("   a stale write is refused: {err}");

    // 7. A read transaction: one consistent snapshot of several facets.
    let mut tx = table.transact_get();
    let customer = tx.get(&Customer::key("ada")?);
    let stock = tx.get(&Stock::key("teapot")?);
    let mut got = tx.await?;
    let customer = got.take(customer)?.expect("stored");
    let teapot = got.take(stock)?.expect("stored");
    println!(
        "7. {} placed {} order(s); {} teapot(s) left",
        customer.name, customer.orders_placed, teapot.on_hand
    );
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // An application opens its table with `Table::from_env::<ShopTable>(name)`: the standard
    // AWS configuration, or the local server FACETEER_DYNAMODB_ENDPOINT names. With neither
    // set, this example runs on a fresh in-process engine, stopped when the table is dropped.
    let table = if std::env::var_os(faceteer::ENDPOINT_VARIABLE).is_some() {
        let name = format!("faceteer-example-orders-{}", std::process::id());
        let table = Table::from_env::<ShopTable>(name).await?;
        table.create_table().await?;
        table
    } else {
        faceteer::embedded::table::<ShopTable>().await?
    };
    println!("faceteer orders example: table {}\n", table.name());
    let result = run(&table).await;
    table.delete_table().await?;
    result
}
