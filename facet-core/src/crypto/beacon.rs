//! Key parts that hold a beacon in place of an encrypted field's value.

use super::cipher::cipher_for;
use super::schema::BeaconSpec;
use crate::key::KeyPart;

/// A key part written as the beacon of its value's key text: what the derive passes for a
/// `#[beacon]` field of a key.
pub struct Beaconed<'a> {
    /// The facet name, for the error when no cipher is installed.
    pub facet: &'static str,
    /// The beacon.
    pub beacon: &'static BeaconSpec,
    /// The field's value.
    pub value: &'a dyn KeyPart,
}

impl KeyPart for Beaconed<'_> {
    fn write_key(&self, out: &mut String) -> Result<(), String> {
        let mut text = String::new();
        self.value.write_key(&mut text)?;
        let cipher = cipher_for(self.facet).map_err(|e| e.to_string())?;
        let beacon = cipher
            .beacon(self.beacon, &text)
            .map_err(|e| e.to_string())?;
        out.push_str(&beacon);
        Ok(())
    }

    fn is_present(&self) -> bool {
        self.value.is_present()
    }

    fn is_optional(&self) -> bool {
        self.value.is_optional()
    }

    fn is_sensitive(&self) -> bool {
        self.value.is_sensitive()
    }
}
