//! A `tracing` layer that keeps every closed span's name and fields, to assert on them.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::Subscriber;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

/// One closed span: its fields, each as text.
pub type SpanFields = BTreeMap<String, String>;

/// Keeps the fields of every span that closes.
#[derive(Clone, Default)]
pub struct Spans {
    closed: Arc<Mutex<Vec<SpanFields>>>,
}

struct Fields(SpanFields);

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl Spans {
    /// The closed spans so far.
    pub fn closed(&self) -> Vec<SpanFields> {
        self.closed.lock().unwrap().clone()
    }

    /// The closed spans of operation `operation`.
    pub fn of(&self, operation: &str) -> Vec<SpanFields> {
        self.closed()
            .into_iter()
            .filter(|s| s.get("db.operation.name").map(String::as_str) == Some(operation))
            .collect()
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = Fields(SpanFields::new());
        attrs.record(&mut fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(fields);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id) {
            if let Some(fields) = span.extensions_mut().get_mut::<Fields>() {
                values.record(fields);
            }
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(&id) {
            if let Some(fields) = span.extensions_mut().remove::<Fields>() {
                self.closed.lock().unwrap().push(fields.0);
            }
        }
    }
}

/// Run `future` with a subscriber keeping its spans; its output and the spans.
pub async fn traced<F: std::future::Future>(future: F) -> (F::Output, Spans) {
    use tracing::instrument::WithSubscriber;
    use tracing_subscriber::layer::SubscriberExt;
    let spans = Spans::default();
    let subscriber = tracing_subscriber::registry().with(spans.clone());
    let out = future.with_subscriber(subscriber).await;
    (out, spans)
}
