//! A `metrics` recorder that keeps every sample: the telemetry tests read what faceteer
//! recorded, and `examples/telemetry.rs` prints it. An application installs its exporter
//! (Prometheus, StatsD, OpenTelemetry) instead.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

/// One recorded value: the metric's name, its labels, the value.
pub type Sample = (String, BTreeMap<String, String>, f64);

/// Every sample recorded, in order.
#[derive(Default, Clone)]
pub struct Samples(Arc<Mutex<Vec<Sample>>>);

struct Handle {
    samples: Samples,
    name: String,
    labels: BTreeMap<String, String>,
}

impl metrics::HistogramFn for Handle {
    fn record(&self, value: f64) {
        let sample = (self.name.clone(), self.labels.clone(), value);
        self.samples.0.lock().unwrap().push(sample);
    }
}

impl metrics::CounterFn for Handle {
    fn increment(&self, value: u64) {
        metrics::HistogramFn::record(self, value as f64);
    }
    fn absolute(&self, value: u64) {
        metrics::HistogramFn::record(self, value as f64);
    }
}

impl Samples {
    fn handle(&self, key: &metrics::Key) -> Arc<Handle> {
        Arc::new(Handle {
            samples: self.clone(),
            name: key.name().to_owned(),
            labels: key
                .labels()
                .map(|l| (l.key().to_owned(), l.value().to_owned()))
                .collect(),
        })
    }

    /// The samples so far.
    pub fn all(&self) -> Vec<Sample> {
        self.0.lock().unwrap().clone()
    }

    /// The samples whose `db.collection.name` is `table`.
    pub fn of_table(&self, table: &str) -> Vec<Sample> {
        self.all()
            .into_iter()
            .filter(|(_, labels, _)| {
                labels.get("db.collection.name").map(String::as_str) == Some(table)
            })
            .collect()
    }

    /// One line per metric and labels: how many samples and their sum.
    pub fn summary(&self) -> String {
        let mut lines: BTreeMap<String, (u64, f64)> = BTreeMap::new();
        for (name, labels, value) in self.all() {
            let labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let entry = lines
                .entry(format!("{name}{{{}}}", labels.join(",")))
                .or_insert((0, 0.0));
            entry.0 += 1;
            entry.1 += value;
        }
        lines
            .into_iter()
            .map(|(key, (n, sum))| format!("{key} count={n} sum={sum:.6}\n"))
            .collect()
    }
}

impl metrics::Recorder for Samples {
    fn describe_counter(
        &self,
        _: metrics::KeyName,
        _: Option<metrics::Unit>,
        _: metrics::SharedString,
    ) {
    }
    fn describe_gauge(
        &self,
        _: metrics::KeyName,
        _: Option<metrics::Unit>,
        _: metrics::SharedString,
    ) {
    }
    fn describe_histogram(
        &self,
        _: metrics::KeyName,
        _: Option<metrics::Unit>,
        _: metrics::SharedString,
    ) {
    }
    fn register_counter(&self, key: &metrics::Key, _: &metrics::Metadata<'_>) -> metrics::Counter {
        metrics::Counter::from_arc(self.handle(key))
    }
    fn register_gauge(&self, _: &metrics::Key, _: &metrics::Metadata<'_>) -> metrics::Gauge {
        metrics::Gauge::noop()
    }
    fn register_histogram(
        &self,
        key: &metrics::Key,
        _: &metrics::Metadata<'_>,
    ) -> metrics::Histogram {
        metrics::Histogram::from_arc(self.handle(key))
    }
}

/// The process's recorder, installed on first use (a process has one global recorder).
pub fn global() -> &'static Samples {
    static SAMPLES: OnceLock<Samples> = OnceLock::new();
    SAMPLES.get_or_init(|| {
        let samples = Samples::default();
        metrics::set_global_recorder(samples.clone())
            .expect("no other metrics recorder is installed in this process");
        samples
    })
}
