//! Typed, borrowing, lenient reading of foreign JSON lines.
//!
//! Building a [`serde_json::Value`] of every line (each string copied, each
//! object an ordered map) was half of what reading a big session cost, and an
//! importer reads a few named fields of each line. The types here read only
//! those: a struct declared with [`fields!`] keeps the keys it names and
//! scans past the rest, text borrows from the line where it has no escapes,
//! and, like the `Value` accessors in `lines.rs`, a field of an unexpected
//! type reads as absent instead of failing the line. A key given twice keeps
//! its last value, as a `Value` would.
//!
//! A line is read first by [`scan`], a reader made for lines that are mostly
//! long strings with escapes; what it declines, serde_json reads.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

mod scan;

/// The `visit_*` methods of a visitor that takes a string as `$make`
/// applied to a `Cow`: borrowed from the line when it has no escapes.
macro_rules! strings_are {
    ($make:expr) => {
        fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok($make(std::borrow::Cow::Borrowed(v)))
        }

        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok($make(std::borrow::Cow::Owned(v.to_owned())))
        }

        fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
            Ok($make(std::borrow::Cow::Owned(v)))
        }
    };
}

pub(crate) use strings_are;

/// One JSON value as the lenient types see it: a string or number they may
/// take, or something else, already scanned past.
enum Scalar<'a> {
    Str(Cow<'a, str>),
    Unsigned(u64),
    Signed(i64),
    Float(f64),
    Bool(bool),
    Other,
}

impl<'de> Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        de.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    strings_are!(Scalar::Str);

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Unsigned(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Signed(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Float(v))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Bool(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }

    fn visit_none<E: de::Error>(self) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Scalar<'de>, A::Error> {
        drain_map(map).map(|()| Scalar::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Scalar<'de>, A::Error> {
        drain_seq(seq).map(|()| Scalar::Other)
    }
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// The `visit_*` methods of a lenient visitor for the values it does not
/// take (every scalar; maps and lists it drains itself): each is `$none`.
macro_rules! others_are {
    ($none:expr) => {
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($none)
        }

        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($none)
        }

        fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($none)
        }

        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($none)
        }

        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok($none)
        }

        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok($none)
        }
    };
}

pub(crate) use others_are;

/// A string field, borrowed from the line when it can be; any other value
/// reads as absent.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Text<'a>(Option<Cow<'a, str>>);

impl<'a> Text<'a> {
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// The text when it is not blank.
    pub fn filled(&self) -> Option<&str> {
        self.get().filter(|s| !s.trim().is_empty())
    }

    /// The text, owned.
    pub fn owned(&self) -> Option<String> {
        self.get().map(String::from)
    }

    pub fn is_some(&self) -> bool {
        self.0.is_some()
    }

    /// The text, moved out (copied only when it was borrowed).
    pub fn take(&mut self) -> Option<String> {
        self.0.take().map(Cow::into_owned)
    }
}

impl<'a> From<Cow<'a, str>> for Text<'a> {
    fn from(text: Cow<'a, str>) -> Self {
        Text(Some(text))
    }
}

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        Ok(Text(match Scalar::deserialize(de)? {
            Scalar::Str(s) => Some(s),
            Scalar::Unsigned(_)
            | Scalar::Signed(_)
            | Scalar::Float(_)
            | Scalar::Bool(_)
            | Scalar::Other => None,
        }))
    }
}

/// A flag: true only when the value is JSON `true`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Flag(pub bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        Ok(Flag(matches!(Scalar::deserialize(de)?, Scalar::Bool(true))))
    }
}

/// A count: a non-negative integer, a non-negative number (its whole part),
/// or a string holding an integer; anything else is absent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Count(pub Option<u64>);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        Ok(Count(match Scalar::deserialize(de)? {
            Scalar::Unsigned(n) => Some(n),
            Scalar::Signed(n) => u64::try_from(n).ok(),
            Scalar::Float(f) => (f >= 0.0).then_some(f as u64),
            Scalar::Str(s) => s.trim().parse().ok(),
            Scalar::Bool(_) | Scalar::Other => None,
        }))
    }
}

/// A time: RFC 3339 text (or a naive time, taken as UTC), or a number of
/// seconds or milliseconds since the epoch, as `lines::timestamp_ms` reads
/// them; the text is kept as written for comparing two lines' times.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Stamp<'a> {
    text: Option<Cow<'a, str>>,
    ms: Option<i64>,
}

impl Stamp<'_> {
    /// Milliseconds since the epoch.
    pub fn ms(&self) -> Option<i64> {
        self.ms
    }

    /// The time as written, when it was written as text.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    pub fn is_some(&self) -> bool {
        self.text.is_some() || self.ms.is_some()
    }
}

impl<'de> Deserialize<'de> for Stamp<'de> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let number = |f: f64| Some(super::lines::ms_from_number(f));
        Ok(match Scalar::deserialize(de)? {
            Scalar::Str(s) => Stamp {
                ms: super::lines::parse_time(s.trim()),
                text: Some(s),
            },
            Scalar::Unsigned(n) => Stamp {
                text: None,
                ms: number(n as f64),
            },
            Scalar::Signed(n) => Stamp {
                text: None,
                ms: number(n as f64),
            },
            Scalar::Float(f) => Stamp {
                text: None,
                ms: number(f),
            },
            Scalar::Bool(_) | Scalar::Other => Stamp::default(),
        })
    }
}

/// A struct read from a JSON object by the keys it names ([`fields!`]).
pub(crate) trait Fields<'de>: Default {
    /// Reads the value of `key` into its field, or scans past it.
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error>;
}

impl<'de, T: Fields<'de>> Fields<'de> for Box<T> {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        (**self).field(key, map)
    }
}

/// An object field read as `T`; any other value reads as absent.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Obj<T>(pub Option<T>);

impl<T> Obj<T> {
    pub fn get(&self) -> Option<&T> {
        self.0.as_ref()
    }
}

impl<'de, T: Fields<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        de.deserialize_any(ObjVisitor(PhantomData))
    }
}

struct ObjVisitor<T>(PhantomData<T>);

impl<'de, T: Fields<'de>> Visitor<'de> for ObjVisitor<T> {
    type Value = Obj<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Obj<T>, A::Error> {
        let mut out = T::default();
        while let Some(key) = map.next_key::<Text<'de>>()? {
            match key.get() {
                Some(key) => out.field(key, &mut map)?,
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Obj(Some(out)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Obj<T>, A::Error> {
        drain_seq(seq).map(|()| Obj(None))
    }

    others_are!(Obj(None));

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Obj<T>, E> {
        Ok(Obj(None))
    }
}

/// The objects of an array field, each read as `T`; elements that are not
/// objects are left out, and a value that is not an array reads as empty.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct List<T>(pub Vec<T>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Vec::new())
    }
}

impl<'de, T: Fields<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let Items { objects, .. } = Items::<T>::deserialize(de)?;
        Ok(List(objects))
    }
}

/// An array's objects read as `T`, and how many of its elements were not
/// objects; a value that is no array has neither.
pub(crate) struct Items<T> {
    pub objects: Vec<T>,
    pub others: usize,
}

impl<'de, T: Fields<'de>> Deserialize<'de> for Items<T> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        de.deserialize_any(ItemsVisitor(PhantomData))
    }
}

struct ItemsVisitor<T>(PhantomData<T>);

impl<'de, T: Fields<'de>> Visitor<'de> for ItemsVisitor<T> {
    type Value = Items<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Items<T>, A::Error> {
        let mut items = Items::none();
        while let Some(Obj(item)) = seq.next_element::<Obj<T>>()? {
            match item {
                Some(item) => items.objects.push(item),
                None => items.others += 1,
            }
        }
        Ok(items)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Items<T>, A::Error> {
        drain_map(map).map(|()| Items::none())
    }

    others_are!(Items::none());

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Items<T>, E> {
        Ok(Items::none())
    }
}

impl<T> Items<T> {
    fn none() -> Self {
        Items {
            objects: Vec::new(),
            others: 0,
        }
    }
}

/// A whole line read as `T`: an error when the line is not a JSON object.
///
/// [`scan`] reads it when it can; a line it declines (any error among them)
/// is read again by serde_json, whose answer, and wording of an error, is
/// the one given.
pub(crate) fn object<'a, T: Fields<'a> + fmt::Debug>(text: &'a [u8]) -> serde_json::Result<T> {
    if let Some(value) = read_fast::<T>(text) {
        // Under the fuzzer (`fuzz/`, whose `import_claude` target reads every
        // line through here), each line the fast reader takes is read by
        // serde_json too, and the two readings must be the same.
        #[cfg(fuzzing)]
        match serde_json::from_slice::<Obj<T>>(text) {
            Ok(Obj(Some(slow))) => assert_eq!(format!("{value:?}"), format!("{slow:?}")),
            other => panic!("the fast reader took a line serde_json reads as {other:?}"),
        }
        return Ok(value);
    }
    let Obj(value) = serde_json::from_slice::<Obj<T>>(text)?;
    value.ok_or_else(|| <serde_json::Error as de::Error>::custom("not a JSON object"))
}

/// The fast reader's reading of a line as `T`, `None` when it declines it
/// (tests hold it to serde_json's).
pub(crate) fn read_fast<'a, T: Fields<'a>>(text: &'a [u8]) -> Option<T> {
    scan::read::<Obj<T>>(text).ok().and_then(|Obj(value)| value)
}

/// A value's text as written in the line (white space inside kept), for a
/// field that is carried on as text rather than read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Raw<'a>(pub &'a RawValue);

impl<'de> Deserialize<'de> for Raw<'de> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        de.deserialize_newtype_struct(scan::RAW, RawVisitor)
    }
}

/// Takes the text from either reader: [`scan`] hands it out as a string,
/// serde_json as its own `RawValue`.
struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Raw<'de>, E> {
        serde_json::from_str::<&RawValue>(text)
            .map(Raw)
            .map_err(E::custom)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<Raw<'de>, D::Error> {
        <&RawValue>::deserialize(de).map(Raw)
    }
}

/// Declares a struct read from a JSON object by [`Fields`]: each field with
/// the key it is read from; other keys are scanned past. Every field's type
/// reads leniently and has a default, which a missing key leaves.
macro_rules! fields {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident<$lt:lifetime> {
            $( $(#[$fmeta:meta])* $key:literal => $field:ident : $ty:ty, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Default)]
        $vis struct $name<$lt> {
            $( $(#[$fmeta])* pub $field: $ty, )*
            _line: std::marker::PhantomData<&$lt ()>,
        }

        impl<$lt> $crate::trace::import::lax::Fields<$lt> for $name<$lt> {
            fn field<A: serde::de::MapAccess<$lt>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<(), A::Error> {
                match key {
                    $( $key => self.$field = map.next_value()?, )*
                    _ => {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(())
            }
        }
    };
}

pub(crate) use fields;

#[cfg(test)]
#[path = "lax_tests.rs"]
mod tests;
