#include "ui/controls_panel.h"

#include "core/fields.h"
#include "core/framework.h"
#include "core/precision.h"
#include "core/validate.h"
#include "io/text.h"
#include "ui/scenario_document.h"
#include "ui/widgets/focus_wheel.h"
#include "ui/widgets/slider_spin.h"
#include "ui/widgets/step_burst.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <functional>
#include <memory>

namespace ui {

namespace {

QString tooltipFor(const QString &key)
{
    const core::FieldInfo *field = core::findField(key.toStdString());
    return field ? io::qs(field->help) : QString();
}

// A check box that acts only where `used`: enabled there, or while `set` away from its default
// so that it can be cleared; its tooltip says `unusedWhy` before the key's help where it does
// nothing.
void explainUse(QWidget *control, const QString &key, bool used, bool set, const QString &unusedWhy)
{
    const QString help = tooltipFor(key);
    control->setEnabled(used || set);
    control->setToolTip(used ? help : unusedWhy + QLatin1Char('\n') + help);
}

// The keys about backward passes, gradients, optimizer states and saved activations.
constexpr const char *kTrainingOnly[] = {"zero",
                                         "zero_replicas",
                                         "defer_replica_reduce",
                                         "schedule",
                                         "virtual_stages",
                                         "recompute",
                                         "grad_precision",
                                         "optimizer_moments",
                                         "dp_overlap",
                                         "dp_bucket_params",
                                         "dp_collective_units",
                                         "fused_swiglu",
                                         "fp8_activation_input",
                                         "zero_buffers",
                                         "cache_outputs",
                                         "fused_grad_accumulation",
                                         "loss_fusion",
                                         "cp",
                                         "cp_exchange",
                                         "overlap_param_gather",
                                         "fp8_params",
                                         "fp8_weight_cache",
                                         "packed_example_tokens",
                                         "lora_rank",
                                         "recompute_layers"};

// The keys about generating tokens: training has no KV cache and generates nothing.
constexpr const char *kInferenceOnly[] = {"output_len", "kv_precision"};

// The factor from a number box's value to its key's (NumberRange::scale).
constexpr const char *kScaleProperty = "parascopeScale";

// Marks the entry of a model or device defined inline in the scenario, not a preset.
constexpr int kInlineRole = Qt::UserRole + 1;
// True on a ZeRO stage the framework has a name of its own for.
constexpr int kFrameworkNameRole = Qt::UserRole + 2;

// A scenario file may define its model or device inline: the picker names it in an entry
// after the presets rather than going blank, for as long as the scenario uses it.
void showInline(QComboBox *combo, const QString &id, const QString &name)
{
    const int last = combo->count() - 1;
    if (last >= 0 && combo->itemData(last, kInlineRole).toBool())
        combo->removeItem(last);
    if (id.isEmpty())
        return;
    combo->addItem(ControlsPanel::tr("%1 (inline)").arg(name.isEmpty() ? id : name), id);
    combo->setItemData(combo->count() - 1, true, kInlineRole);
    combo->setCurrentIndex(combo->count() - 1);
}

template <typename E> void addEnumItems(QComboBox *combo)
{
    for (const auto &entry : core::enumNames(E{}))
        combo->addItem(io::qs(entry.name), io::qs(entry.name));
}

// What each schedule does, as its item's tooltip says it.
QString scheduleTip(core::Schedule schedule)
{
    switch (schedule) {
    case core::Schedule::gpipe:
        return ControlsPanel::tr("GPipe (Huang et al. 2019): every forward, then every backward; "
                                 "all m micro-batches' activations alive at once.");
    case core::Schedule::oneFOneB:
        return ControlsPanel::tr("1F1B (Narayanan et al. 2021, §2.2): a warm-up of forwards, "
                                 "then a forward and a backward in turn; stage s keeps at most "
                                 "K − s micro-batches.");
    case core::Schedule::interleaved:
        return ControlsPanel::tr("Interleaved 1F1B (Megatron-LM): v model chunks a device (Virtual "
                                 "stages), the bubble v times shorter, more sends.");
    case core::Schedule::zbH1:
        return ControlsPanel::tr("ZB-H1 (Qi et al. 2023): 1F1B with the weight gradients (W) "
                                 "split off and run later, to fill the bubble.");
    case core::Schedule::dualPipeV:
        return ControlsPanel::tr(
            "DualPipeV (deepseek-ai/DualPipe, from DeepSeek-V3's DualPipe): two model chunks a "
            "device in a V, out from stage 0 to K − 1 and back, so the embedding and the LM head "
            "both sit on stage 0. Needs m ≥ 2K micro-batches. Runs the forward of one "
            "micro-batch and the backward of another as one overlapped pair; with ep_overlap a "
            "pair hides its all-to-all. Some backwards defer their W, as ZB-H1's do.");
    case core::Schedule::dualPipe:
        return ControlsPanel::tr(
            "DualPipe (DeepSeek-V3 Technical Report §3.2.1; deepseek-ai/DualPipe, dualpipe.py): "
            "half the micro-batches enter at stage 0, the other half at stage K − 1 and run "
            "the other way. Each device holds its stage of both directions, two copies of the "
            "parameters, and both end stages hold an embedding and an LM head. Needs an even K "
            "and an even m ≥ 2K. Runs forward-and-backward pairs as DualPipeV does; with "
            "ep_overlap a pair hides its all-to-all. Of the framework profiles only custom "
            "runs it.");
    }
    return {};
}

} // namespace

ControlsPanel::ControlsPanel(ScenarioDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_form(new QFormLayout(this))
{
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_form->setLabelAlignment(Qt::AlignLeft);

    // The framework first: choosing one sets its profile's keys below (docs/frameworks.md).
    QComboBox *framework = addChoice(QStringLiteral("framework"), tr("Frame&work"));
    for (const auto &entry : core::enumNames(core::Framework{}))
        framework->addItem(io::qs(core::frameworkProfile(entry.value).name), io::qs(entry.name));
    m_profileNote = new QLabel;
    m_profileNote->setObjectName(QStringLiteral("profileNote"));
    m_profileNote->setWordWrap(true);
    m_profileNote->setToolTip(tr("Keys set differently from the framework's profile; choose "
                                 "the framework again to restore them."));
    m_form->addRow(QString(), m_profileNote);

    QComboBox *model = addChoice(QStringLiteral("model"), tr("&Model"));
    for (const auto &m : document->presets().models)
        model->addItem(io::qs(m.name), io::qs(m.id));
    QComboBox *device = addChoice(QStringLiteral("device"), tr("&Device"));
    for (const auto &d : document->presets().devices)
        device->addItem(io::qs(d.name), io::qs(d.id));
    addEnumItems<core::Precision>(addChoice(QStringLiteral("precision"), tr("&Precision")));
    QComboBox *scaling = addChoice(QStringLiteral("fp8_scaling"), tr("FP8 scaling"));
    scaling->addItem(tr("delayed"), QStringLiteral("delayed"));
    scaling->addItem(tr("current (one more pass)"), QStringLiteral("current"));
    scaling->addItem(tr("per block (MXFP8)"), QStringLiteral("block"));
    addCheck(QStringLiteral("fp8_params"), tr("FP8 parameters"));
    addCheck(QStringLiteral("fp8_weight_cache"), tr("Keep cast weights"));
    addCheck(QStringLiteral("save_quantized_inputs"), tr("Keep cast inputs"));
    addCheck(QStringLiteral("fp8_attention"), tr("FP8 attention"));
    addCheck(QStringLiteral("fp8_lm_head"), tr("FP8 LM head"));
    addEnumItems<core::Mode>(addChoice(QStringLiteral("mode"), tr("M&ode")));

    addSlider(QStringLiteral("pp"), tr("Pipeline stages &K"), 1, 128, true);
    addSlider(QStringLiteral("microbatches"), tr("Micro-&batches m"), 1, 1024, true);
    addSlider(QStringLiteral("tp"), tr("&Tensor parallel T"), 1, 128, true);
    addSlider(QStringLiteral("dp"), tr("D&ata parallel D"), 1, 1024, true);
    // Long context and experts (docs/experts.md): enabled where they apply (refresh).
    addSlider(QStringLiteral("cp"), tr("Context parallel C"), 1, 64, true);
    QComboBox *exchange = addChoice(QStringLiteral("cp_exchange"), tr("Context exchange"));
    exchange->addItem(tr("ring"), QStringLiteral("ring"));
    exchange->addItem(tr("all-gather"), QStringLiteral("allgather"));
    exchange->addItem(tr("all-to-all (Ulysses)"), QStringLiteral("alltoall"));
    addSlider(QStringLiteral("ep"), tr("Expert parallel E"), 1, 256, true);
    addNumber(QStringLiteral("expert_tp"), tr("Expert tensor parallel"), {0, 128, 0, 1})
        ->setSpecialValueText(tr("as T"));
    addSlider(QStringLiteral("microbatch_size"), tr("Micro-batch si&ze (sequences)"), 1, 256, true);
    addSlider(QStringLiteral("seq_len"), tr("Se&quence length (tokens)"), 128, 131072, true);
    // Fine-tuning on packed examples (docs/step_time.md, "Packed examples"): 0 is one example a
    // sequence.
    addNumber(QStringLiteral("packed_example_tokens"), tr("Packed examples (tokens)"),
              {0, 16777216, 0, 64})
        ->setSpecialValueText(tr("off"));
    // LoRA fine-tuning (docs/step_time.md, "LoRA"): 0 trains every weight; the projections the
    // adapters sit beside, in Megatron-Bridge's target_modules names, spaces or commas between
    // them (refresh greys the modules while the rank is off).
    addNumber(QStringLiteral("lora_rank"), tr("LoRA rank"), {0, 65536, 0, 8})
        ->setSpecialValueText(tr("off"));
    QLineEdit *lora = addText(QStringLiteral("lora_modules"), tr("LoRA modules"), QString());
    lora->setCompleter(new QCompleter(
        QStringList{QStringLiteral("linear_qkv linear_proj linear_fc1 linear_fc2"),
                    QStringLiteral("linear_qkv linear_proj"), QStringLiteral("linear_qkv"),
                    QStringLiteral("linear_proj linear_fc1 linear_fc2"),
                    QStringLiteral("linear_fc1 linear_fc2")},
        lora));
    addCheck(QStringLiteral("lora_a2a"), tr("LoRA all-to-all"));
    // The adapters' dropout before A, a probability; 0 is none (docs/step_time.md, "LoRA").
    addNumber(QStringLiteral("lora_dropout"), tr("LoRA dropout"), {0, 0.99, 2, 0.05})
        ->setSpecialValueText(tr("none"));
    QComboBox *dropAt = addChoice(QStringLiteral("lora_dropout_position"), tr("LoRA dropout at"));
    dropAt->addItem(tr("A's input"), QStringLiteral("pre"));
    dropAt->setItemData(0,
                        tr("Before A, on the adapter's input: Megatron-Bridge's, NeMo 2.0's and "
                           "Hugging Face PEFT's place, and MLPerf's LoRA runs'"),
                        Qt::ToolTipRole);
    dropAt->addItem(tr("B's output"), QStringLiteral("post"));
    dropAt->setItemData(1,
                        tr("After B, on the adapter's output before it is added: NeMo "
                           "AutoModel's default"),
                        Qt::ToolTipRole);
    // Serving (docs/inference.md): how many tokens each sequence generates, and the cache's
    // format.
    addNumber(QStringLiteral("output_len"), tr("Output tokens"), {0, 1048576, 0, 64});
    addEnumItems<core::KvPrecision>(
        addChoice(QStringLiteral("kv_precision"), tr("KV cache t&ype")));

    // Item texts follow the framework's names for each stage (refresh).
    QComboBox *zero = addChoice(QStringLiteral("zero"), tr("ZeRO sta&ge"));
    for (int stage = 0; stage <= 3; ++stage)
        zero->addItem(QString(), QString::number(stage));
    // Hybrid sharding: 1 shards over all of D x C (docs/step_time.md, "Hybrid sharding").
    addNumber(QStringLiteral("zero_replicas"), tr("ZeRO replicas R"), {1, 1048576, 0, 1});
    addCheck(QStringLiteral("defer_replica_reduce"), tr("Replicas reduce once a step"));
    QComboBox *schedule = addChoice(QStringLiteral("schedule"), tr("&Schedule"));
    for (const auto &entry : core::enumNames(core::Schedule{})) {
        schedule->addItem(io::qs(entry.name), io::qs(entry.name));
        schedule->setItemData(schedule->count() - 1, scheduleTip(entry.value), Qt::ToolTipRole);
    }
    addSlider(QStringLiteral("virtual_stages"), tr("Virt&ual stages v"), 1, 16, false);
    addEnumItems<core::Recompute>(addChoice(QStringLiteral("recompute"), tr("&Recomputation")));
    // Megatron-LM's module names, spaces or commas between them (docs/activations.md).
    QLineEdit *modules =
        addText(QStringLiteral("recompute_modules"), tr("Recomputed modules"), tr("none"));
    modules->setCompleter(new QCompleter(
        QStringList{QStringLiteral("core_attn"), QStringLiteral("core_attn layernorm"),
                    QStringLiteral("core_attn moe_act layernorm"),
                    QStringLiteral("mla_up_proj moe_act layernorm"), QStringLiteral("moe"),
                    QStringLiteral("none")},
        modules));
    // Megatron-LM's block method: the first N layers of each chunk rerun, "all" at 0
    // (docs/activations.md, "Recomputed layers"; refresh greys it but under full recomputation).
    addNumber(QStringLiteral("recompute_layers"), tr("Recomputed layers"), {0, 1024, 0, 1})
        ->setSpecialValueText(tr("all"));
    // Transformer Engine's CPU offloading of the first N layers' activations, "none" at 0
    // (docs/activations.md, "Offloaded layers"; refresh greys it where Megatron-core refuses it).
    addNumber(QStringLiteral("offload_layers"), tr("Offloaded layers"), {0, 1024, 0, 1})
        ->setSpecialValueText(tr("none"));
    addEnumItems<core::Attention>(addChoice(QStringLiteral("attention"), tr("Atte&ntion")));
    QComboBox *grads = addChoice(QStringLiteral("grad_precision"), tr("Gradients"));
    grads->addItem(QStringLiteral("bf16"), QStringLiteral("bf16"));
    grads->addItem(tr("fp32 accumulation"), QStringLiteral("fp32"));
    QComboBox *moments = addChoice(QStringLiteral("optimizer_moments"), tr("Adam moments"));
    moments->addItem(QStringLiteral("fp32"), QStringLiteral("fp32"));
    moments->addItem(tr("bf16 (precision-aware)"), QStringLiteral("bf16"));
    addCheck(QStringLiteral("sequence_parallel"), tr("Sequence para&llelism"));
    addCheck(QStringLiteral("tp_overlap"), tr("Overlap TP communication"));
    addCheck(QStringLiteral("tp_overlap_qkv"), tr("Overlap QKV gather"));
    addCheck(QStringLiteral("ep_overlap"), tr("Overlap expert all-to-all"));
    // An item with the value it sets and a tooltip that says what it does.
    const auto addExplained = [](QComboBox *box, const QString &text, const QString &value,
                                 const QString &tip) {
        box->addItem(text, value);
        box->setItemData(box->count() - 1, tip, Qt::ToolTipRole);
    };
    QComboBox *dispatcher = addChoice(QStringLiteral("ep_dispatcher"), tr("Expert dispatcher"));
    addExplained(dispatcher, tr("all-to-all"), QStringLiteral("alltoall"),
                 tr("Each copy of a token to its expert's device on its own"));
    addExplained(dispatcher, tr("flex"), QStringLiteral("flex"),
                 tr("DeepEP or HybridEP: a token once to each other node its experts are on, "
                    "then over NVLink inside it"));
    // "dropless" at 0: no capacity factor (docs/experts.md, "Capacity").
    addNumber(QStringLiteral("expert_capacity_factor"), tr("Expert capacity factor"),
              {0, 64, 2, 0.05})
        ->setSpecialValueText(tr("dropless"));
    addCheck(QStringLiteral("pad_to_capacity"), tr("Pad experts to capacity"));
    // 1 is balanced routing (docs/experts.md, "Routing imbalance").
    addNumber(QStringLiteral("expert_rank_load"), tr("Busiest expert rank's load"),
              {1, 16384, 2, 0.05})
        ->setSpecialValueText(tr("balanced"));
    addCheck(QStringLiteral("full_cuda_graph"), tr("Whole-step CUDA graph"));
    addCheck(QStringLiteral("fused_swiglu"), tr("Fused SwiGLU"));
    addCheck(QStringLiteral("fp8_activation_input"), tr("SwiGLU input in FP8"));
    addCheck(QStringLiteral("fused_elementwise"), tr("Fused norms and RoPE"));
    addCheck(QStringLiteral("fused_grad_accumulation"), tr("Fused gradient accumulation"));
    QComboBox *loss = addChoice(QStringLiteral("loss_fusion"), tr("Loss kernels"));
    addExplained(loss, tr("unfused"), QStringLiteral("none"),
                 tr("Megatron-LM's vocabulary-parallel loss as PyTorch operations, its default"));
    addExplained(loss, tr("Megatron-core fused"), QStringLiteral("native"),
                 tr("--cross-entropy-loss-fusion: about 3/4 of the unfused forward's time"));
    addExplained(loss, tr("Transformer Engine"), QStringLiteral("te"),
                 tr("--cross-entropy-fusion-impl te, as Megatron-Bridge's recipes run it: the "
                    "logits read twice and the gradient written over them"));
    addCheck(QStringLiteral("overlap_param_gather"), tr("Overlap parameter gather"));
    QComboBox *buffers = addChoice(QStringLiteral("zero_buffers"), tr("ZeRO buffers"));
    buffers->addItem(tr("none"), QStringLiteral("none"));
    buffers->addItem(tr("DeepSpeed's"), QStringLiteral("deepspeed"));
    buffers->addItem(tr("FSDP2's"), QStringLiteral("fsdp"));
    addCheck(QStringLiteral("cache_outputs"), tr("&Cache last-stage outputs"));
    addCheck(QStringLiteral("ends_in_pipeline_split"), tr("Embedding, loss as layers"));
    // "none" at 0: no multi-token prediction (docs/step_time.md, "Multi-token prediction").
    addNumber(QStringLiteral("mtp_layers"), tr("Multi-token prediction"), {0, 16, 0, 1})
        ->setSpecialValueText(tr("none"));
    // Besides a layout written out, the two words it takes: the even split and DeepSpeed's
    // partition by parameters (docs/DESIGN.md §3.3).
    QLineEdit *layout =
        addText(QStringLiteral("pipeline_layout"), tr("Pipeline layout"), tr("even split"));
    layout->setCompleter(
        new QCompleter(QStringList{QStringLiteral("even"),
                                   QString::fromLatin1(core::kParametersLayout.data(),
                                                       qsizetype(core::kParametersLayout.size()))},
                       layout));
    // The orders by their own names, as Megatron-LM writes them; each item says what it does.
    QComboBox *order = addChoice(QStringLiteral("rank_order"), tr("Rank order"));
    addExplained(order, QStringLiteral("tp-cp-ep-dp-pp"), QStringLiteral("tp-cp-ep-dp-pp"),
                 tr("Megatron-LM's default: a replica's pipeline stages furthest apart"));
    addExplained(order, QStringLiteral("tp-cp-ep-pp-dp"), QStringLiteral("tp-cp-ep-pp-dp"),
                 tr("--use-tp-pp-dp-mapping: a replica's stages together, its data-parallel "
                    "peers apart"));

    addNumber(QStringLiteral("reserve_gib"), tr("Framework reserve"), {0, 64, 1, 0.5})
        ->setSuffix(QStringLiteral(" GiB"));
    // 0 is the device's own figure: the key's value is then empty.
    addNumber(QStringLiteral("inter_node_gb_per_s"), tr("&Inter-node bandwidth"), {0, 100000, 1, 5})
        ->setSuffix(QStringLiteral(" GB/s"));
    // "auto" at the minimum: the per-operation model; a number forces one efficiency. Three
    // decimals reach the smallest value allowed, 0.001, so no forced value reads as auto.
    addNumber(QStringLiteral("mfu"), tr("Compute efficiency (MFU)"), {0.0, 1.0, 3, 0.05})
        ->setSpecialValueText(tr("auto"));
    // "auto" just below 0: the sync hides behind the passes it overlaps (docs/step_time.md);
    // 0 to 1 hides that fraction of it.
    addNumber(QStringLiteral("dp_overlap"), tr("Gradient sync hidden"), {-0.1, 1.0, 2, 0.1})
        ->setSpecialValueText(tr("auto"));
    // "auto" at 0: the device's collective_units; otherwise the SMs (NCCL CTAs) it may hold.
    addNumber(QStringLiteral("dp_collective_units"), tr("Gradient sync SMs"), {0, 1024, 0, 1})
        ->setSpecialValueText(tr("auto"));
    // "auto" at 0: the framework's buckets; otherwise millions of parameters per bucket.
    QDoubleSpinBox *bucket = addNumber(QStringLiteral("dp_bucket_params"), tr("Gradient bucket"),
                                       {0, 100000, 0, 10, 1e6});
    bucket->setSpecialValueText(tr("auto"));
    bucket->setSuffix(tr(" M params"));

    connect(document, &ScenarioDocument::changed, this, &ControlsPanel::refresh);
    refresh();
}

void ControlsPanel::setStacked(bool stacked)
{
    m_form->setRowWrapPolicy(stacked ? QFormLayout::WrapAllRows : QFormLayout::DontWrapRows);
    fitZeroNames();
}

bool ControlsPanel::fitZeroNames()
{
    // Other pickers show 12 characters and their list the rest; the ZeRO picker shows the
    // framework's name for each stage it has ("1 — distributed optimizer") whole, at the
    // current text size. A stage the framework lacks shows its generic name and says so,
    // elided, whole in the list.
    auto *zero = qobject_cast<QComboBox *>(m_controls.value(QStringLiteral("zero")));
    if (!zero)
        return false;
    int widest = 0;
    for (int stage = 0; stage < zero->count(); ++stage)
        if (zero->itemData(stage, kFrameworkNameRole).toBool())
            widest = std::max(widest, zero->fontMetrics().horizontalAdvance(zero->itemText(stage)));
    QStyleOptionComboBox option;
    option.initFrom(zero);
    const QSize text(widest, zero->fontMetrics().height());
    const int width =
        zero->style()->sizeFromContents(QStyle::CT_ComboBox, &option, text, zero).width();
    if (width == zero->minimumWidth())
        return false;
    zero->setMinimumWidth(width);
    return true;
}

bool ControlsPanel::isStacked() const
{
    return m_form->rowWrapPolicy() == QFormLayout::WrapAllRows;
}

void ControlsPanel::addRow(const QString &key, const QString &label, QWidget *control)
{
    control->setObjectName(key);
    control->setToolTip(tooltipFor(key));
    auto *caption = new QLabel(label);
    caption->setBuddy(control);
    caption->setToolTip(control->toolTip());
    m_form->addRow(caption, control);
    m_controls.insert(key, control);
}

QComboBox *ControlsPanel::addChoice(const QString &key, const QString &label)
{
    auto *combo = new Stepped<QComboBox>;
    // Long preset names must not widen the dock: the popup shows them in full.
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(12);
    wheelOnlyWhenFocused(combo);
    addRow(key, label, combo);
    // The items an arrow key passes on its way to one choice are one undo step.
    connect(combo, &QComboBox::activated, this,
            [this, combo, key, gesture = stepGesture(combo->steps())](int index) {
                // The scenario's inline model or device is already in use: setting its id
                // would look for a preset of that name.
                if (combo->itemData(index, kInlineRole).toBool())
                    return;
                m_document->setField(key, combo->itemData(index).toString(), gesture());
            });
    return combo;
}

SliderSpin *ControlsPanel::addSlider(const QString &key, const QString &label, int minimum,
                                     int maximum, bool logarithmic)
{
    auto *slider = new SliderSpin(
        minimum, maximum, logarithmic ? SliderSpin::Scale::logarithmic : SliderSpin::Scale::linear);
    addRow(key, label, slider);
    slider->slider()->setToolTip(slider->toolTip());
    slider->spinBox()->setToolTip(slider->toolTip());
    wheelOnlyWhenFocused(slider->slider());
    wheelOnlyWhenFocused(slider->spinBox());
    // One drag of the slider is one undo step, and so is one burst of steps.
    auto drag = std::make_shared<int>(0);
    connect(slider, &SliderSpin::dragStarted, this,
            [this, drag] { *drag = m_document->beginGesture(); });
    connect(slider, &SliderSpin::valueEdited, this,
            [this, key, drag, steps = stepGesture(slider->steps())](int value, bool dragging) {
                m_document->setField(key, QString::number(value), dragging ? *drag : steps());
            });
    return slider;
}

std::function<int()> ControlsPanel::stepGesture(const StepBurst *steps)
{
    auto gesture = std::make_shared<int>(0);
    connect(steps, &StepBurst::started, this,
            [this, gesture] { *gesture = m_document->beginGesture(); });
    return [steps, gesture] { return steps->isStepping() ? *gesture : 0; };
}

QDoubleSpinBox *ControlsPanel::addNumber(const QString &key, const QString &label,
                                         const NumberRange &range)
{
    auto *box = new Stepped<QDoubleSpinBox>;
    box->setRange(range.minimum, range.maximum);
    box->setDecimals(range.decimals);
    box->setSingleStep(range.step);
    box->setKeyboardTracking(false);
    box->setProperty(kScaleProperty, range.scale);
    wheelOnlyWhenFocused(box);
    addRow(key, label, box);
    // An optional key's special value at the minimum stands for the key unset; a count's
    // (expert_tp's "as T", mtp_layers' "none") names the minimum itself, 0.
    const core::FieldInfo *field = core::findField(key.toStdString());
    const bool optional =
        field && std::holds_alternative<std::optional<double> core::Scenario::*>(field->member);
    connect(box, &QDoubleSpinBox::valueChanged, this,
            [this, box, key, optional, scale = range.scale,
             gesture = stepGesture(box->steps())](double value) {
                const bool unset =
                    optional && value == box->minimum() && !box->specialValueText().isEmpty();
                // Padding needs a capacity: going dropless turns it off in the same undo step.
                if (unset && key == QLatin1String("expert_capacity_factor") &&
                    m_document->scenario().padToCapacity) {
                    core::Scenario next = m_document->scenario();
                    next.expertCapacityFactor.reset();
                    next.padToCapacity = false;
                    m_document->setScenario(next, tr("Set expert_capacity_factor to dropless"));
                    return;
                }
                m_document->setField(
                    key, unset ? QString() : QString::number(value * scale, 'g', 15), gesture());
            });
    return box;
}

QCheckBox *ControlsPanel::addCheck(const QString &key, const QString &label)
{
    auto *check = new QCheckBox;
    addRow(key, label, check);
    connect(check, &QCheckBox::toggled, this, [this, key](bool on) {
        // The FP8 copy is the fused SwiGLU's: unfusing turns it off in the same undo step, so
        // the edit leaves no scenario validation refuses (fp8_activation_input).
        if (!on && key == QLatin1String("fused_swiglu") &&
            m_document->scenario().fp8ActivationInput) {
            core::Scenario next = m_document->scenario();
            next.fusedSwiglu = false;
            next.fp8ActivationInput = false;
            m_document->setScenario(next, tr("Set fused_swiglu to false"));
            return;
        }
        m_document->setField(key, on ? QStringLiteral("true") : QStringLiteral("false"));
    });
    return check;
}

QLineEdit *ControlsPanel::addText(const QString &key, const QString &label,
                                  const QString &placeholder)
{
    auto *line = new QLineEdit;
    line->setPlaceholderText(placeholder);
    line->setClearButtonEnabled(true);
    addRow(key, label, line);
    const core::FieldInfo *field = core::findField(key.toStdString());
    const QString unset = field ? io::qs(field->unset) : QString();
    connect(line, &QLineEdit::editingFinished, this, [this, key, line, unset] {
        const QString text = line->text().trimmed();
        const QString value = text.isEmpty() ? unset : text;
        // A key without an unset word refuses an empty line (lora_modules): the line shows the
        // scenario's value again rather than a blank it does not hold.
        if (value != m_document->fieldText(key) && !m_document->setField(key, value)) {
            line->setText(m_document->fieldText(key));
            line->setCursorPosition(0);
        }
    });
    return line;
}

void ControlsPanel::refresh()
{
    for (auto it = m_controls.cbegin(); it != m_controls.cend(); ++it) {
        const QString value = m_document->fieldText(it.key());
        QWidget *control = it.value();
        const QSignalBlocker block(control);
        if (auto *combo = qobject_cast<QComboBox *>(control)) {
            combo->setCurrentIndex(combo->findData(value));
        } else if (auto *slider = qobject_cast<SliderSpin *>(control)) {
            slider->setValue(value.toInt());
        } else if (auto *check = qobject_cast<QCheckBox *>(control)) {
            check->setChecked(value == QLatin1String("true"));
        } else if (auto *line = qobject_cast<QLineEdit *>(control)) {
            // The unset word shows as the placeholder: an empty line.
            const core::FieldInfo *field = core::findField(it.key().toStdString());
            const bool unset = field && value == io::qs(field->unset);
            // A list longer than the line (lora_modules' four names) shows from its start.
            if (line->text() != (unset ? QString() : value)) {
                line->setText(unset ? QString() : value);
                line->setCursorPosition(0);
            }
        } else if (auto *spin = qobject_cast<QDoubleSpinBox *>(control)) {
            // An unset key ("" or its word, "auto") is the box's minimum, its special value.
            bool number = false;
            const double v = value.toDouble(&number);
            const double scale = spin->property(kScaleProperty).toDouble();
            spin->setValue(number ? v / (scale > 0 ? scale : 1) : spin->minimum());
        }
    }
    const core::Scenario &s = m_document->scenario();
    QStringList changed;
    for (std::string_view key : core::changedFromProfile(s))
        changed << io::qs(key);
    m_profileNote->setText(changed.isEmpty() ? QString()
                                             : tr("changed: %1").arg(changed.join(u", ")));
    m_profileNote->setVisible(!changed.isEmpty());
    // The framework's own names for ZeRO stages and recomputation (docs/frameworks.md).
    const core::FrameworkProfile &profile = core::frameworkProfile(s.framework);
    const core::FrameworkProfile &generic = core::frameworkProfile(core::Framework::custom);
    if (auto *zero = qobject_cast<QComboBox *>(m_controls.value(QStringLiteral("zero"))))
        for (int stage = 0; stage < zero->count() && stage < 4; ++stage) {
            const auto name = profile.zeroNames[std::size_t(stage)];
            zero->setItemText(stage, name.empty()
                                         ? tr("%1 — %2 (not in %3)")
                                               .arg(stage)
                                               .arg(io::qs(generic.zeroNames[std::size_t(stage)]),
                                                    io::qs(profile.name))
                                         : tr("%1 — %2").arg(stage).arg(io::qs(name)));
            zero->setItemData(stage, !name.empty(), kFrameworkNameRole);
        }
    if (fitZeroNames())
        Q_EMIT widthWanted();
    if (auto *recompute = qobject_cast<QComboBox *>(m_controls.value(QStringLiteral("recompute"))))
        for (int i = 0; i < recompute->count(); ++i) {
            const auto kind =
                core::parseEnum<core::Recompute>(recompute->itemData(i).toString().toStdString());
            const auto name =
                kind ? profile.recomputeNames[std::size_t(*kind)] : std::string_view();
            recompute->setItemData(
                i, name.empty() ? QString() : tr("%1: %2").arg(io::qs(profile.name), io::qs(name)),
                Qt::ToolTipRole);
        }
    for (auto [key, id, name] : {
             std::tuple{QStringLiteral("model"), s.customModel ? s.customModel->id : std::string(),
                        s.customModel ? s.customModel->name : std::string()},
             std::tuple{QStringLiteral("device"),
                        s.customDevice ? s.customDevice->id : std::string(),
                        s.customDevice ? s.customDevice->name : std::string()},
         }) {
        auto *combo = static_cast<QComboBox *>(m_controls.value(key));
        const QSignalBlocker block(combo);
        showInline(combo, io::qs(id), io::qs(name));
    }
    // An empty inter-node bandwidth is the device's, which the box names at its minimum.
    if (auto *box = qobject_cast<QDoubleSpinBox *>(
            m_controls.value(QStringLiteral("inter_node_gb_per_s")))) {
        const core::DeviceSpec *device = core::resolveDevice(s, m_document->presets());
        box->setSpecialValueText(device ? tr("device's, %1 GB/s").arg(device->interNodeGbPerS)
                                        : tr("device's"));
    }
    // Inference keeps no gradients, optimizer states or saved activations and runs the
    // forward passes only: the keys about those do not apply, and their tooltips say so.
    const bool inference = s.mode == core::Mode::inference;
    for (const char *key : kTrainingOnly) {
        QWidget *control = m_controls.value(QString::fromLatin1(key));
        if (!control)
            continue;
        control->setEnabled(!inference);
        const QString help = tooltipFor(QString::fromLatin1(key));
        control->setToolTip(inference ? tr("Not used in inference: it runs forward passes only "
                                           "and keeps no gradients, optimizer states or saved "
                                           "activations.\n%1")
                                            .arg(help)
                                      : help);
    }
    for (const char *key : kInferenceOnly) {
        QWidget *control = m_controls.value(QString::fromLatin1(key));
        control->setEnabled(inference);
        const QString help = tooltipFor(QString::fromLatin1(key));
        control->setToolTip(inference ? help
                                      : tr("Used in inference only: training generates no tokens "
                                           "and keeps no KV cache.\n%1")
                                            .arg(help));
    }
    // A graph of the whole step is a training step's.
    {
        QWidget *control = m_controls.value(QStringLiteral("full_cuda_graph"));
        const QString help = tooltipFor(QStringLiteral("full_cuda_graph"));
        control->setEnabled(!inference);
        control->setToolTip(
            inference ? tr("Not used in inference: it captures a training step.\n%1").arg(help)
                      : help);
    }
    // The exchange only matters when C splits sequences.
    m_controls.value(QStringLiteral("cp_exchange"))->setEnabled(!inference && s.cp > 1);
    // With one stage both orders number the devices alike.
    {
        QWidget *control = m_controls.value(QStringLiteral("rank_order"));
        const QString help = tooltipFor(QStringLiteral("rank_order"));
        control->setEnabled(s.pp > 1);
        control->setToolTip(s.pp > 1 ? help
                                     : tr("Not used with one pipeline stage: both orders number "
                                          "the devices alike.\n%1")
                                           .arg(help));
    }
    // Scales are found only for FP8 casts, and FP8 training, or NVFP4 LoRA for its frozen
    // weights, chooses how its weights are held; a greyed control says why, as its value stays
    // the scenario's.
    const bool fp8 = s.precision == core::Precision::fp8;
    const bool nvfp4Lora = s.precision == core::Precision::nvfp4 && s.loraRank > 0;
    for (const char *key : {"fp8_scaling", "fp8_params"}) {
        const bool params = std::string_view(key) == "fp8_params";
        const bool held = fp8 || (params && nvfp4Lora);
        const bool applies = held && !(params && inference);
        QWidget *control = m_controls.value(QString::fromLatin1(key));
        control->setEnabled(applies);
        const QString help = tooltipFor(QString::fromLatin1(key));
        control->setToolTip(
            applies ? help
            : inference && held
                ? tr("Not used in inference: it holds the weights in FP8 already.\n%1").arg(help)
            : params && s.precision == core::Precision::nvfp4
                ? tr("Not used in NVFP4 training of every weight, which holds them in BF16; with "
                     "LoRA it holds the frozen weights in NVFP4.\n%1")
                      .arg(help)
                : tr("Not used at %1 precision: it applies to FP8 only.\n%2")
                      .arg(QString::fromLatin1(core::toString(s.precision)), help));
    }
    // Only FP8 and NVFP4 training cast the inputs it keeps for the backward, and run
    // attention in FP8.
    for (const char *key : {"save_quantized_inputs", "fp8_attention"}) {
        const bool cast = fp8 || s.precision == core::Precision::nvfp4;
        QWidget *control = m_controls.value(QString::fromLatin1(key));
        const QString help = tooltipFor(QString::fromLatin1(key));
        control->setEnabled(cast && !inference);
        control->setToolTip(
            !cast ? tr("Not used at %1 precision: it applies to FP8 and NVFP4 training.\n%2")
                        .arg(QString::fromLatin1(core::toString(s.precision)), help)
            : inference
                ? tr("Not used in inference: it applies to FP8 and NVFP4 training.\n%1").arg(help)
                : help);
    }
    // FP8 and NVFP4 training keep cast copies of 16-bit weights, or FP8 weights' transposes.
    {
        const bool cast = s.precision == core::Precision::nvfp4 || fp8;
        QWidget *control = m_controls.value(QStringLiteral("fp8_weight_cache"));
        const QString help = tooltipFor(QStringLiteral("fp8_weight_cache"));
        control->setEnabled(cast && !inference && s.zero < 3);
        control->setToolTip(
            !fp8 && s.precision != core::Precision::nvfp4
                ? tr("Not used at %1 precision: it applies to FP8 and NVFP4 training.\n%2")
                      .arg(QString::fromLatin1(core::toString(s.precision)), help)
            : inference
                ? tr("Not used in inference: it applies to FP8 and NVFP4 training.\n%1").arg(help)
            : s.zero >= 3 ? tr("Not used at ZeRO-3: the weights are gathered anew for each "
                               "use.\n%1")
                                .arg(help)
                          : help);
    }
    // Megatron-core runs the LM head in FP8 under MXFP8 training only (fp8_output_proj).
    {
        const bool block = s.fp8Scaling == core::Fp8Scaling::block;
        QWidget *control = m_controls.value(QStringLiteral("fp8_lm_head"));
        const QString help = tooltipFor(QStringLiteral("fp8_lm_head"));
        control->setEnabled(fp8 && block && !inference);
        control->setToolTip(
            !fp8 ? tr("Not used at %1 precision: it applies to FP8 training with block "
                      "scaling.\n%2")
                       .arg(QString::fromLatin1(core::toString(s.precision)), help)
            : inference ? tr("Not used in inference: it applies to FP8 training.\n%1").arg(help)
            : !block    ? tr("Not used with %1 scaling: Megatron-core runs the LM head in FP8 "
                                "with MXFP8 (per block) only.\n%2")
                           .arg(QString::fromLatin1(core::toString(s.fp8Scaling)), help)
                     : help);
    }
    // Experts are spread only where the model has them.
    const core::ModelSpec *model = core::resolveModel(s, m_document->presets());
    const bool experts = model && model->hasExperts();
    for (const char *key : {"ep", "expert_tp"}) {
        QWidget *control = m_controls.value(QString::fromLatin1(key));
        control->setEnabled(experts);
        const QString help = tooltipFor(QString::fromLatin1(key));
        control->setToolTip(
            experts ? help : tr("The model is dense: it has no experts to spread.\n%1").arg(help));
    }
    // A capacity sizes experts' inputs; padding needs one to pad to.
    {
        QWidget *capacity = m_controls.value(QStringLiteral("expert_capacity_factor"));
        const QString capacityHelp = tooltipFor(QStringLiteral("expert_capacity_factor"));
        capacity->setEnabled(experts);
        capacity->setToolTip(
            experts ? capacityHelp
                    : tr("The model is dense: it has no experts to size.\n%1").arg(capacityHelp));
        QWidget *pad = m_controls.value(QStringLiteral("pad_to_capacity"));
        const QString padHelp = tooltipFor(QStringLiteral("pad_to_capacity"));
        const bool sized = s.expertCapacityFactor.has_value();
        pad->setEnabled(experts && (sized || s.padToCapacity));
        pad->setToolTip(!experts
                            ? tr("The model is dense: it has no experts to pad.\n%1").arg(padHelp)
                        : !sized ? tr("Set an expert capacity factor first: dropless routing "
                                      "has no capacity to pad to.\n%1")
                                       .arg(padHelp)
                                 : padHelp);
    }
    // Routing's imbalance is over the ranks that hold experts.
    {
        QWidget *control = m_controls.value(QStringLiteral("expert_rank_load"));
        const QString help = tooltipFor(QStringLiteral("expert_rank_load"));
        const bool spread = experts && s.ep > 1;
        control->setEnabled(spread || s.expertRankLoad != 1);
        control->setToolTip(
            !experts ? tr("The model is dense: it routes no tokens.\n%1").arg(help)
            : !spread
                ? tr("E = 1: one device holds every expert, so no rank takes more than another."
                     "\n%1")
                      .arg(help)
                : help);
    }
    // The all-to-all overlap pairs a backward with a forward: experts, in training.
    {
        QWidget *control = m_controls.value(QStringLiteral("ep_overlap"));
        const QString help = tooltipFor(QStringLiteral("ep_overlap"));
        control->setEnabled(experts && !inference);
        control->setToolTip(
            !experts ? tr("The model is dense: it has no all-to-all to overlap.\n%1").arg(help)
            : inference
                ? tr("Not used in inference: it runs no backward to pair with.\n%1").arg(help)
                : help);
    }
    // Modules are what selective recomputation reruns.
    {
        QWidget *control = m_controls.value(QStringLiteral("recompute_modules"));
        const QString help = tooltipFor(QStringLiteral("recompute_modules"));
        const bool selective = !inference && s.recompute == core::Recompute::selective;
        control->setEnabled(selective);
        control->setToolTip(
            inference ? tr("Not used in inference: nothing is recomputed.\n%1").arg(help)
            : !selective
                ? tr("Used with selective recomputation only: %1 recomputation reruns its own "
                     "part of each layer.\n%2")
                      .arg(QString::fromLatin1(core::toString(s.recompute)), help)
                : help);
    }
    // Hybrid sharding splits what ZeRO shards: nothing at ZeRO 0. While it holds a count there
    // it stays enabled, to be set back to 1.
    if (!inference) {
        QWidget *control = m_controls.value(QStringLiteral("zero_replicas"));
        const QString help = tooltipFor(QStringLiteral("zero_replicas"));
        control->setEnabled(s.zero >= 1 || s.zeroReplicas > 1);
        control->setToolTip(s.zero >= 1 ? help
                                        : tr("Used from ZeRO 1 on: at ZeRO 0 nothing is sharded, "
                                             "and all D x C devices all-reduce together.\n%1")
                                              .arg(help));
    }
    // Under hybrid sharding R must divide D: the D slider lands on multiples of R only and its
    // box steps by R (a value typed is taken, and validation names zero_replicas if it does not
    // divide). Everywhere else every D.
    if (auto *dp = qobject_cast<SliderSpin *>(m_controls.value(QStringLiteral("dp")))) {
        const bool hybrid = !inference && s.zero >= 1 && s.zeroReplicas > 1;
        dp->setMultiple(hybrid ? s.zeroReplicas : 1);
        const QString help = tooltipFor(QStringLiteral("dp"));
        dp->setToolTip(hybrid ? tr("Moves in multiples of R = %1: the ZeRO replicas must "
                                   "divide D.\n%2")
                                    .arg(s.zeroReplicas)
                                    .arg(help)
                              : help);
    }
    // The replicas' all-reduce runs after every micro-batch only under hybrid sharding at ZeRO 2
    // and 3; while ticked elsewhere it stays enabled, to be unticked.
    if (!inference) {
        QWidget *control = m_controls.value(QStringLiteral("defer_replica_reduce"));
        const QString help = tooltipFor(QStringLiteral("defer_replica_reduce"));
        const bool applies = s.zeroReplicas > 1 && s.zero >= 2;
        control->setEnabled(applies || s.deferReplicaReduce);
        control->setToolTip(applies ? help
                                    : tr("Used with ZeRO replicas above 1 at ZeRO 2 and 3 only: "
                                         "elsewhere the replicas reduce once a step or not at "
                                         "all.\n%1")
                                          .arg(help));
    }
    // A count of recomputed layers is full recomputation's; while it holds one under another
    // mode it stays enabled, to be set back to all.
    if (!inference) {
        QWidget *control = m_controls.value(QStringLiteral("recompute_layers"));
        const QString help = tooltipFor(QStringLiteral("recompute_layers"));
        const bool full = s.recompute == core::Recompute::full;
        control->setEnabled(full || s.recomputeLayers > 0);
        control->setToolTip(
            full ? help
                 : tr("Used with full recomputation only: %1 recomputation reruns its own part "
                      "of every layer.\n%2")
                       .arg(QString::fromLatin1(core::toString(s.recompute)), help));
    }
    // Megatron-core offloads activations with one pipeline stage and no recomputation only
    // (transformer_config.py), and Parascope times the copies over the device's link to host
    // memory; while set where it does not apply it stays enabled, to be set back to none.
    {
        const core::DeviceSpec *device = core::resolveDevice(s, m_document->presets());
        const QString why =
            inference  ? tr("Not used in inference: it runs forward passes only and keeps no "
                             "activations for a backward pass.")
            : s.pp > 1 ? tr("K = %1: Megatron-core offloads activations with one pipeline stage "
                            "only.")
                             .arg(s.pp)
            : s.recompute != core::Recompute::none
                ? tr("Used without recomputation only: Megatron-core's CPU offloading does not "
                     "work with %1 recomputation.")
                      .arg(QString::fromLatin1(core::toString(s.recompute)))
            : !(model && model->hasArchitecture())
                ? tr("The model is given by its size alone: it has no layers to offload.")
            : !(device && device->hostGbPerS > 0)
                ? tr("%1 publishes no link to host memory (host_gb_per_s) to offload over.")
                      .arg(device ? io::qs(device->name) : tr("The device"))
                : QString();
        explainUse(m_controls.value(QStringLiteral("offload_layers")),
                   QStringLiteral("offload_layers"), why.isEmpty(), s.offloadLayers > 0, why);
    }
    // The FP8 copy is of the fused SwiGLU's 2f-wide input (Megatron-core fused_bias_swiglu.py):
    // it changes nothing without a gated MLP or the fused kernel. Validation refuses it there
    // in training, so while set it stays enabled, to be turned off.
    if (!inference) {
        QWidget *control = m_controls.value(QStringLiteral("fp8_activation_input"));
        const QString help = tooltipFor(QStringLiteral("fp8_activation_input"));
        const bool gated = model && model->gatedMlp;
        control->setEnabled((gated && s.fusedSwiglu) || s.fp8ActivationInput);
        control->setToolTip(!gated ? tr("The model's MLP is not gated: it has no SwiGLU input to "
                                        "keep.\n%1")
                                         .arg(help)
                            : !s.fusedSwiglu ? tr("Used with Fused SwiGLU only: Megatron-core "
                                                  "keeps the FP8 copy in its fused kernel.\n%1")
                                                   .arg(help)
                                             : help);
    }
    // LoRA's adapters sit beside the projections of a model with layers; the modules say
    // which, so they matter only with a rank, or while they hold a list to correct.
    {
        QWidget *control = m_controls.value(QStringLiteral("lora_rank"));
        const QString help = tooltipFor(QStringLiteral("lora_rank"));
        const bool layers = model && model->hasArchitecture();
        if (!layers) {
            control->setEnabled(s.loraRank > 0);
            control->setToolTip(tr("The model is given by its size alone: it has no projections "
                                   "to adapt.\n%1")
                                    .arg(help));
        }
        QWidget *modules = m_controls.value(QStringLiteral("lora_modules"));
        const QString modulesHelp = tooltipFor(QStringLiteral("lora_modules"));
        const bool parses = std::holds_alternative<unsigned>(core::parseLoraModules(s.loraModules));
        const bool adapted = !inference && s.loraRank > 0;
        modules->setEnabled(adapted || !parses);
        modules->setToolTip(
            inference ? tr("Not used in inference: it names where fine-tuning's adapters sit.\n%1")
                            .arg(modulesHelp)
            : s.loraRank == 0 ? tr("Used with a LoRA rank only: with the rank off every weight "
                                   "trains.\n%1")
                                    .arg(modulesHelp)
                              : modulesHelp);
        // The all-to-all is the exchange of the adapters beside proj and fc2 under sequence
        // parallelism; set where it does nothing, it stays on to be cleared.
        explainUse(m_controls.value(QStringLiteral("lora_a2a")), QStringLiteral("lora_a2a"),
                   adapted && s.tp > 1 && s.sequenceParallel, s.loraA2a,
                   tr("Used with a LoRA rank, T > 1 and sequence parallelism only."));
        explainUse(m_controls.value(QStringLiteral("lora_dropout")), QStringLiteral("lora_dropout"),
                   adapted, s.loraDropout > 0, tr("Used with a LoRA rank in training only."));
        explainUse(m_controls.value(QStringLiteral("lora_dropout_position")),
                   QStringLiteral("lora_dropout_position"), adapted && s.loraDropout > 0,
                   s.loraDropoutPosition != core::LoraDropoutPosition::pre,
                   tr("Used with a LoRA rank and a LoRA dropout in training only."));
    }
    // QKV's gather is one of the collectives tp_overlap hides; cleared where it does nothing,
    // it stays enabled to be set again.
    explainUse(m_controls.value(QStringLiteral("tp_overlap_qkv")), QStringLiteral("tp_overlap_qkv"),
               s.tpOverlap && s.sequenceParallel && s.tp > 1, !s.tpOverlapQkv,
               tr("Used with Overlap TP communication, sequence parallelism and T > 1 only."));
    // Multi-token prediction trains beside a model with layers to repeat.
    {
        QWidget *control = m_controls.value(QStringLiteral("mtp_layers"));
        const QString help = tooltipFor(QStringLiteral("mtp_layers"));
        const bool layers = model && model->hasArchitecture();
        control->setEnabled(layers && (!inference || s.mtpLayers > 0));
        control->setToolTip(
            !layers ? tr("The model is given by its size alone: it has no layer to "
                         "repeat.\n%1")
                          .arg(help)
            : inference ? tr("Not used in inference: multi-token prediction trains beside the "
                             "model.\n%1")
                              .arg(help)
                        : help);
    }
    // The dispatchers differ only when the all-to-all leaves a node.
    {
        QWidget *control = m_controls.value(QStringLiteral("ep_dispatcher"));
        const QString help = tooltipFor(QStringLiteral("ep_dispatcher"));
        const core::DeviceSpec *device = core::resolveDevice(s, m_document->presets());
        const bool spans =
            experts && device && std::int64_t{s.ep} * s.expertTpDegree() > device->devicesPerNode;
        control->setEnabled(experts);
        control->setToolTip(
            !experts ? tr("The model is dense: it has no tokens to dispatch.\n%1").arg(help)
            : !spans ? tr("The all-to-all stays in one node here, where both dispatchers move "
                          "the same copies over NVLink.\n%1")
                           .arg(help)
                     : help);
    }
    // Virtual stages only mean something for the interleaved schedule, in training; DualPipeV
    // and DualPipe have two chunks a device whatever they say.
    {
        QWidget *control = m_controls.value(QStringLiteral("virtual_stages"));
        const QString help = tooltipFor(QStringLiteral("virtual_stages"));
        control->setEnabled(!inference && s.schedule == core::Schedule::interleaved);
        if (!inference && s.schedule == core::Schedule::dualPipeV)
            control->setToolTip(
                tr("Not used by dualpipev: it always runs two chunks a device, in a V.\n%1")
                    .arg(help));
        else if (!inference && s.schedule == core::Schedule::dualPipe)
            control->setToolTip(tr("Not used by dualpipe: it always runs two chunks a device, "
                                   "its stage of each direction.\n%1")
                                    .arg(help));
        else if (!inference && s.schedule != core::Schedule::interleaved)
            control->setToolTip(
                tr("Used by the interleaved schedule only; %1 runs one chunk a device.\n%2")
                    .arg(io::qs(core::toString(s.schedule)), help));
    }
}

} // namespace ui
