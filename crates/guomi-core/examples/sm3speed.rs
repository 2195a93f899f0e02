use std::time::Instant;
fn main() {
    let data = vec![7u8; 1 << 20];
    for b in guomi_core::cpu::available() {
        guomi_core::cpu::with_backend(b, || {
            let mut best = f64::MAX;
            for _ in 0..20 {
                let t = Instant::now();
                let d = guomi_core::sm3::hash(&data);
                std::hint::black_box(d);
                best = best.min(t.elapsed().as_secs_f64());
            }
            println!("{:?}: {:.0} MB/s", b, data.len() as f64 / best / 1e6);
        });
    }
}
