//! A table's settings as the JSON object a design lock records.

use serde_json::{json, Map, Value};

use crate::settings::{Capacity, Encryption, Recovery, TableSettings};

fn capacity(c: &Capacity) -> Value {
    match c {
        Capacity::OnDemand { max } => {
            let mut o = Map::new();
            o.insert("mode".into(), "on-demand".into());
            if let Some(m) = max {
                o.insert("max_read".into(), m.read.into());
                o.insert("max_write".into(), m.write.into());
            }
            o.into()
        }
        Capacity::Provisioned {
            units,
            auto_scaling,
        } => {
            let mut o = Map::new();
            o.insert("mode".into(), "provisioned".into());
            o.insert("read".into(), units.read.into());
            o.insert("write".into(), units.write.into());
            if let Some(s) = auto_scaling {
                o.insert(
                    "auto_scaling".into(),
                    json!({
                        "read": [s.read.min, s.read.max],
                        "write": [s.write.min, s.write.max],
                        "target_percent": s.target_percent,
                    }),
                );
            }
            o.into()
        }
    }
}

/// `settings` as a JSON object of the declared ones (`None` when none is declared).
pub(crate) fn settings_json(settings: &TableSettings) -> Option<Value> {
    if settings.is_default() {
        return None;
    }
    let mut o = Map::new();
    if let Some(c) = &settings.capacity {
        o.insert("capacity".into(), capacity(c));
    }
    if let Some(r) = settings.point_in_time_recovery {
        let v = match r {
            Recovery::Off => Value::Bool(false),
            Recovery::On { days } => json!({ "days": days }),
        };
        o.insert("point_in_time_recovery".into(), v);
    }
    if let Some(on) = settings.deletion_protection {
        o.insert("deletion_protection".into(), on.into());
    }
    if let Some(e) = settings.encryption {
        let v = match e {
            Encryption::AwsOwned => "aws-owned".into(),
            Encryption::AwsManaged => "aws-managed".into(),
            Encryption::CustomerKey(key) => json!({ "kms_key": key }),
        };
        o.insert("encryption".into(), v);
    }
    if let Some(class) = settings.table_class {
        o.insert("table_class".into(), class.as_str().into());
    }
    if !settings.tags.is_empty() {
        let tags: Map<String, Value> = settings
            .tags
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).into()))
            .collect();
        o.insert("tags".into(), tags.into());
    }
    if let Some(w) = settings.warm_throughput {
        o.insert(
            "warm_throughput".into(),
            json!({ "read": w.read, "write": w.write }),
        );
    }
    if !settings.indexes.is_empty() {
        let indexes: Map<String, Value> = settings
            .indexes
            .iter()
            .map(|i| {
                let mut v = Map::new();
                if let Some(c) = &i.capacity {
                    v.insert("capacity".into(), capacity(c));
                }
                if let Some(w) = i.warm_throughput {
                    v.insert(
                        "warm_throughput".into(),
                        json!({ "read": w.read, "write": w.write }),
                    );
                }
                (i.index.to_owned(), v.into())
            })
            .collect();
        o.insert("indexes".into(), indexes.into());
    }
    Some(o.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::{compare, Class, DesignLock};
    use crate::settings::{Capacity, Recovery, Throughput};

    #[test]
    fn settings_are_recorded_and_losing_a_protection_is_reviewed() {
        let facets = crate::design::fixtures::facets();
        const ON: TableSettings = TableSettings::DEFAULT
            .capacity(Capacity::on_demand_up_to(Throughput::new(10, 5)))
            .point_in_time_recovery(Recovery::ON)
            .deletion_protection(true)
            .tags(&[("team", "a")]);
        let design = crate::design::TableDesign::new("t", &facets);
        let before = DesignLock::of_design(&design.with_settings(ON));
        let json = before.settings.clone().unwrap();
        assert_eq!(json["capacity"]["max_read"], 10);
        assert_eq!(json["point_in_time_recovery"]["days"], 35);
        assert_eq!(json["tags"]["team"], "a");
        assert_eq!(DesignLock::of_design(&design).settings, None);
        let round = DesignLock::from_json(&before.to_json()).unwrap();
        assert_eq!(round, before);

        const OFF: TableSettings = ON.deletion_protection(false).tags(&[("team", "b")]);
        let after = DesignLock::of_design(&design.with_settings(OFF));
        let report = compare(&before, &after, 0);
        let classes: Vec<Class> = report.changes.iter().map(|c| c.class()).collect();
        assert!(classes.contains(&Class::Review), "{report}");
        assert!(classes.contains(&Class::Safe), "{report}");
        assert!(
            report.to_string().contains("deletion_protection"),
            "{report}"
        );
    }
}
